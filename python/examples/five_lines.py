import ldp_analyst as ldp
client = ldp.Client(token_file="ldp.db.analyst_token")  # at $LDP_SERVER, else 127.0.0.1:50051
run = ldp.run_loadtest(client, agents=2000, workload="prefix", domain=16)  # creates the study
estimates = client.estimates(run.study_id)
ldp.plot_estimates(estimates, truth=run.truth).savefig("prefix.png")
