"""ldp_analyst: the analyst's side of the LDP Aggregator, from Python.

A thin layer over the generated ``ldp.v1.AnalystService`` stubs: a
:class:`Client` whose calls raise :class:`LdpError` with the server's status
and message, estimates as pandas tables, matplotlib plots with intervals,
bands and truth, and :func:`run_loadtest` to fill a study with simulated
agents. README.md, "Python analyst client", says how the stubs are built
and found.
"""

from .client import Client
from .errors import LdpError, LoadtestError, SpecError
from .loadtest import LoadtestRun, run_loadtest
from .plotting import plot_estimates
from .results import Estimates
from .specs import study_spec
from .truth import load_truth

__all__ = ["Client", "Estimates", "LdpError", "LoadtestError", "LoadtestRun", "SpecError",
           "load_truth", "plot_estimates", "run_loadtest", "study_spec"]
