/* The agent as a C library: for apps on devices that embed the agent and
 * carry the protocol over their own network stack.
 *
 * The library keeps one device's record, privacy budget and memo and turns
 * the server's tasks into reports, exactly as ldp-agent does (the same C++
 * core beneath: client/core/agent.h). It never touches the network: the app
 * moves protocol bytes (serialized ldp.v1 protobuf messages, see
 * proto/ldp/v1/agent_service.proto) between this library and the server's
 * AgentService, by gRPC or by any other means:
 *
 *   1. Enroll (AgentService.Enroll) once and keep the agent id and bearer
 *      token; the library does not hold credentials. The request to send
 *      comes from ldp_agent_enroll_request: save it before the first try
 *      and resend exactly it on every retry until a reply arrives.
 *   2. Poll: send a GetTasksRequest (ldp_agent_get_tasks_request builds
 *      one) and hand the GetTasksResponse bytes to ldp_agent_answer_poll.
 *      Every task the agent accepts is answered and its spend saved through
 *      the storage callbacks before the call returns; refused tasks cost
 *      nothing.
 *   3. Upload: ldp_agent_next_upload gives an UploadReportsRequest with the
 *      reports not yet settled (the oldest first, at most 1000); send it as
 *      the one message of an UploadReports stream and hand the request and
 *      the UploadReportsResponse to ldp_agent_record_upload. Repeat until
 *      ldp_agent_next_upload has nothing to send. A report that was not
 *      acknowledged stays pending and is sent again, byte for byte. Only
 *      acks for a request the library produced settle anything: a request
 *      built or changed by the app, or one already settled, is refused
 *      (LDP_NOT_FOUND) and settles nothing.
 *      Shuffled studies (proto/ldp/v1/shuffle_service.proto): their reports
 *      never go to the server, and ldp_agent_next_upload never holds one.
 *      An app with a shuffler of its own (the server never names one: a
 *      hostile server would name itself) calls ldp_agent_use_shuffler
 *      after opening the agent, else the agent refuses such tasks. In the
 *      same send slot as step 3, it sends each SubmitRequest
 *      ldp_agent_next_shuffled_upload gives to its shuffler's
 *      ShufflerService.Submit, with no credential, and hands the request
 *      and the SubmitResponse to ldp_agent_record_shuffled_upload, until
 *      there is nothing to send. Each report was sealed to the server's
 *      key once, when it was saved, and is resent as saved.
 *
 * Privacy: the library applies the agent's own checks whatever the server
 * asks (a task over the study, lifetime or per-period cap is refused; the
 * caps default to safe values the server cannot change; coins come from a
 * ChaCha20 stream keyed by OpenSSL). The app never sees the record's
 * answer before it is randomized. A shuffled task charges its own ε, the
 * local ε0 that still holds if the server and the shuffler collude: the
 * default caps refuse a large ε0 until the owner raises them.
 *
 * Conventions: every function that can fail returns an ldp_status_code and,
 * when `status` is not NULL, fills it with the code and a message a person
 * can act on. Lengths are explicit; no string is assumed to be
 * NUL-terminated except those documented so. Buffers the library returns
 * are freed with ldp_buffer_free. A handle may be used from any thread but
 * by one call at a time: a call made while another is running on the same
 * handle returns LDP_ABORTED and changes nothing. No C++ exception crosses
 * this boundary, and the library never writes to stdout or stderr (not
 * even protobuf's own messages about malformed bytes): all it has to say
 * is in the status. (One exception, not caused by any input: if OpenSSL's
 * ChaCha20 itself fails mid-stream, the coin generator fails closed,
 * printing why and aborting, rather than draw weaker coins.)
 */
#ifndef LDP_CLIENT_AGENT_C_LDP_AGENT_H_
#define LDP_CLIENT_AGENT_C_LDP_AGENT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What libldp_agent.so exports (ldp_agent.map hides everything else). */
#if defined(__GNUC__)
#define LDP_AGENT_API __attribute__((visibility("default")))
#else
#define LDP_AGENT_API
#endif

/* This header's ABI version; ldp_agent_abi_version() returns the library's. */
#define LDP_AGENT_ABI_VERSION 1

/* Status codes, numbered as google.rpc.Code (and absl::StatusCode). */
typedef enum ldp_status_code {
  LDP_OK = 0,
  LDP_INVALID_ARGUMENT = 3,    /* bad options or malformed bytes */
  LDP_NOT_FOUND = 5,           /* e.g. an ack for a task never answered */
  LDP_FAILED_PRECONDITION = 9, /* e.g. the budget does not allow it */
  LDP_ABORTED = 10,            /* another call is running on this handle */
  LDP_INTERNAL = 13,           /* e.g. acks that do not match the upload */
  LDP_UNAVAILABLE = 14,        /* a storage callback failed; retry later */
  LDP_DATA_LOSS = 15           /* the saved state is damaged */
} ldp_status_code;

/* A status with its message (NUL-terminated, cut to fit). */
typedef struct ldp_status {
  int code; /* an ldp_status_code; other google.rpc.Code values may appear */
  char message[512];
} ldp_status;

/* Bytes the library allocated; free with ldp_buffer_free. */
typedef struct ldp_buffer {
  uint8_t* data;
  size_t size;
} ldp_buffer;

/* Where the agent's state lives: one opaque blob the app keeps in its own
 * sandbox. Each callback returns 0 on success and anything else on
 * failure (the library then reports LDP_UNAVAILABLE and keeps its last
 * durable state). The blob carries a SHA-256 of itself: a blob with any
 * bit changed, cut short or grown opens as LDP_DATA_LOSS, never as a
 * different budget. Blobs saved by a library from before the digest (the
 * bare state text) are still read, and rewritten with it on the next
 * save; such an older library refuses the new blobs as LDP_DATA_LOSS (it
 * does not start afresh). */
typedef struct ldp_storage {
  void* context; /* passed back to every callback */
  /* Sets *data and *size to the saved blob (size 0: nothing saved yet).
   * The bytes stay the app's and must stay valid until the next callback. */
  int (*load)(void* context, const uint8_t** data, size_t* size);
  /* Replaces the saved blob with `size` bytes at `data`. */
  int (*write)(void* context, const uint8_t* data, size_t size);
  /* Makes the last write durable (e.g. fsync); a report leaves only after
   * its spend is durable. */
  int (*sync)(void* context);
} ldp_storage;

/* Agent options. Zero-initialize, then set what you need; 0 means the
 * safe default. */
typedef struct ldp_agent_options {
  /* The record as a JSON object (NUL-terminated), read against each
   * study's schema: {"age": 34, "smoker": false}. Required. */
  const char* record_json;
  /* The most one study may spend, in nano-ε (default 1 ε). */
  int64_t max_epsilon_per_study_nanos;
  /* The lifetime cap (default 10 ε) and the cap per rolling period
   * (default 2 ε per 86,400 s), in nano-ε; the server has no say. */
  int64_t lifetime_cap_nanos;
  int64_t period_cap_nanos;
  int64_t period_seconds;
  /* Nonzero: the coins come from a ChaCha20 stream keyed from
   * `simulation_seed`, so runs repeat exactly. Anyone who knows the seed
   * knows every coin: only for tests and simulated agents, never for a
   * person's record. */
  int insecure_simulation;
  uint64_t simulation_seed;
} ldp_agent_options;

typedef struct ldp_agent ldp_agent; /* opaque */

/* The library's version ("1.1.0") and ABI version. */
LDP_AGENT_API const char* ldp_agent_version(void);
LDP_AGENT_API int ldp_agent_abi_version(void);

/* Opens an agent: loads its state through `storage` (copied; the context
 * must outlive the handle). On success *out is a handle to close with
 * ldp_agent_close. LDP_INVALID_ARGUMENT for bad options, LDP_DATA_LOSS
 * for a damaged blob (see ldp_storage), LDP_UNAVAILABLE if `load`
 * fails. */
LDP_AGENT_API int ldp_agent_open(const ldp_agent_options* options,
                                 const ldp_storage* storage, ldp_agent** out,
                                 ldp_status* status);

/* Closes the handle (NULL is fine). Nothing is lost: the state is durable
 * after every call that changed it. No other call may run on the handle
 * then, nor start after. */
LDP_AGENT_API void ldp_agent_close(ldp_agent* agent);

/* A serialized GetTasksRequest for `agent_id` (max_tasks 0 = the server's
 * default). */
LDP_AGENT_API int ldp_agent_get_tasks_request(ldp_agent* agent,
                                              uint64_t agent_id,
                                              uint32_t max_tasks,
                                              ldp_buffer* out,
                                              ldp_status* status);

/* Answers the tasks of a serialized GetTasksResponse. *answered and
 * *refused (either may be NULL) count the tasks answered (fresh, from the
 * memo or again) and those refused; a refusal is never an error of the
 * call (a task whose bytes do not parse, e.g. a string field that is not
 * UTF-8, is refused alone). LDP_INVALID_ARGUMENT if the bytes are not a
 * GetTasksResponse at all; LDP_UNAVAILABLE if the state could not be
 * saved (then nothing was answered and nothing was spent). The counts are
 * 0 when the call fails. */
LDP_AGENT_API int ldp_agent_answer_poll(ldp_agent* agent,
                                        const uint8_t* response, size_t size,
                                        int* answered, int* refused,
                                        ldp_status* status);

/* The next UploadReportsRequest to send for `agent_id`: the oldest
 * unsettled reports (at most 1000 and about 64 KiB). out->size is 0 when
 * there is nothing to send. */
LDP_AGENT_API int ldp_agent_next_upload(ldp_agent* agent, uint64_t agent_id,
                                        ldp_buffer* out, ldp_status* status);

/* Settles the reports of a sent UploadReportsRequest from the server's
 * UploadReportsResponse: acknowledged or permanently refused reports are
 * settled, transiently failed ones stay pending. *accepted and *rejected
 * (either may be NULL) count them. The request must be one the library
 * produced: every report in it exactly (byte for byte) the report the
 * agent holds pending for its task, as ldp_agent_next_upload wrote it,
 * each task once, and nothing else in the request. When the call fails,
 * nothing is settled and both counts are 0:
 *   LDP_INVALID_ARGUMENT  either byte string is not the message it should
 *                         be;
 *   LDP_NOT_FOUND         the request is not one the library produced, or
 *                         its reports are settled already (the message
 *                         names the report): drop it and ask
 *                         ldp_agent_next_upload for the next one;
 *   LDP_INTERNAL          the acks do not answer exactly the request's
 *                         reports in order (a response to another
 *                         request, or a confused server);
 *   LDP_UNAVAILABLE       the settlement could not be saved. */
LDP_AGENT_API int ldp_agent_record_upload(ldp_agent* agent,
                                          const uint8_t* request,
                                          size_t request_size,
                                          const uint8_t* response,
                                          size_t response_size, int* accepted,
                                          int* rejected, ldp_status* status);

/* Lets the agent answer shuffled studies' tasks: the app sends their
 * sealed reports to a shuffler of its own (ldp_agent_next_shuffled_upload).
 * `agent_id` is the id the agent enrolled under: a task whose shuffle
 * ticket names another agent, or another study, round, question, key or
 * deadline than the task's own, is refused (nothing is spent). Lasts until
 * the handle is closed. LDP_INVALID_ARGUMENT for agent_id 0. */
LDP_AGENT_API int ldp_agent_use_shuffler(ldp_agent* agent, uint64_t agent_id,
                                         ldp_status* status);

/* The next serialized ldp.v1.SubmitRequest for the app's shuffler: the
 * oldest unsettled sealed reports (at most 1000 and about 64 KiB), exactly
 * as saved. out->size is 0 when there is nothing to send. */
LDP_AGENT_API int ldp_agent_next_shuffled_upload(ldp_agent* agent,
                                                 ldp_buffer* out,
                                                 ldp_status* status);

/* Settles the sealed reports of a sent SubmitRequest from the shuffler's
 * SubmitResponse: acknowledged reports (ALREADY_EXISTS too: an earlier try
 * got through) and permanently refused ones are settled, transiently failed
 * ones stay pending. *accepted and *rejected (either may be NULL) count
 * them. As for ldp_agent_record_upload, the request must be one the
 * library produced: every submission exactly one of the agent's pending
 * sealed reports as ldp_agent_next_shuffled_upload wrote it, each once,
 * and nothing else. When the call fails, nothing is settled and both
 * counts are 0: LDP_INVALID_ARGUMENT for bytes that are not the messages
 * they should be; LDP_NOT_FOUND for a request the library did not produce
 * or whose submissions are settled already (drop it and ask for the next
 * one); LDP_INTERNAL if the acks do not answer the request's submissions
 * one for one; LDP_UNAVAILABLE if the settlement could not be saved. */
LDP_AGENT_API int ldp_agent_record_shuffled_upload(
    ldp_agent* agent, const uint8_t* request, size_t request_size,
    const uint8_t* response, size_t response_size, int* accepted, int* rejected,
    ldp_status* status);

/* What the agent has spent in nano-ε: in total, and on one study (0 if it
 * never answered that study). */
LDP_AGENT_API int ldp_agent_spent(ldp_agent* agent, uint64_t study_id,
                                  int64_t* total_nanos, int64_t* study_nanos,
                                  ldp_status* status);

/* A serialized ldp.v1.EnrollRequest for AgentService.Enroll: the one-time
 * `token` (token_size bytes, required), the PEM CSR (csr_size bytes; 0 for
 * a bearer-token credential, and csr_pem may then be NULL) and a fresh
 * 32-byte request_id from the operating system's CSPRNG. It takes no
 * handle, so it may be called before any agent is opened. Each call
 * draws a new request id, so call it once per enrollment: save the bytes
 * durably before the first try and resend them unchanged on every retry
 * (even after a restart) until a reply arrives; the server then answers
 * every retry with the same agent and credential. Keep the bytes secret like
 * the credential (the bearer token is derived from the request id) and delete
 * them once enrolled. LDP_INVALID_ARGUMENT for an empty token, or a token or
 * CSR that is not UTF-8; LDP_INTERNAL if the CSPRNG fails. Exported under the
 * symbol version LDP_AGENT_1.1: an app that calls it does not load against an
 * older library that lacks it. */
LDP_AGENT_API int ldp_agent_enroll_request(const char* token, size_t token_size,
                                           const char* csr_pem, size_t csr_size,
                                           ldp_buffer* out, ldp_status* status);

/* Frees a buffer the library returned (NULL or empty is fine) and clears
 * it. */
LDP_AGENT_API void ldp_buffer_free(ldp_buffer* buffer);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LDP_CLIENT_AGENT_C_LDP_AGENT_H_ */
