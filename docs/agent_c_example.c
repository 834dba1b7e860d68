/* A complete embedding of the agent's C library (client/agent_c/ldp_agent.h),
 * in C.
 *
 * An app moves the protocol's bytes itself; here they come from and go to
 * files, so that the example runs without a network:
 *
 *   agent_c_example STATE_FILE POLL_FILE UPLOAD_FILE
 *
 * reads a serialized GetTasksResponse (what AgentService.GetTasks returned)
 * from POLL_FILE, answers its tasks for the record {"color": "green"},
 * keeps the agent's state in STATE_FILE, and writes the serialized
 * UploadReportsRequest to send (UploadReports) to UPLOAD_FILE. It prints
 * what it did. Run it again on the same poll: the same tasks get the very
 * same reports, and nothing is spent twice.
 *
 * The state is written the way an app should: to a temporary file, synced,
 * then renamed over the old one, so that a crash leaves either state whole.
 * tests/client/agent_c/agent_c_example_test.cc builds and runs this file. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/agent_c/ldp_agent.h"

/* The storage context: the state file's path and the last loaded blob. */
typedef struct file_storage {
  const char* path;
  char temp_path[4096];
  uint8_t* loaded;
  int temp_fd;
} file_storage;

/* Reads a whole file into a malloc'd buffer; a missing file is empty. */
static int read_file(const char* path, uint8_t** data, size_t* size) {
  FILE* f = fopen(path, "rb");
  *data = NULL;
  *size = 0;
  if (f == NULL) return 0;
  size_t capacity = 0;
  for (;;) {
    if (*size == capacity) {
      capacity = capacity == 0 ? 4096 : 2 * capacity;
      uint8_t* grown = realloc(*data, capacity);
      if (grown == NULL) {
        fclose(f);
        return 1;
      }
      *data = grown;
    }
    const size_t n = fread(*data + *size, 1, capacity - *size, f);
    if (n == 0) break;
    *size += n;
  }
  const int failed = ferror(f);
  fclose(f);
  return failed;
}

static int load_state(void* context, const uint8_t** data, size_t* size) {
  file_storage* s = context;
  free(s->loaded);
  if (read_file(s->path, &s->loaded, size) != 0) return 1;
  *data = s->loaded;
  return 0;
}

static int write_state(void* context, const uint8_t* data, size_t size) {
  file_storage* s = context;
  snprintf(s->temp_path, sizeof(s->temp_path), "%s.tmp", s->path);
  s->temp_fd = open(s->temp_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (s->temp_fd < 0) return 1;
  while (size > 0) {
    const ssize_t n = write(s->temp_fd, data, size);
    if (n <= 0) return 1;
    data += n;
    size -= (size_t)n;
  }
  return 0;
}

static int sync_state(void* context) {
  file_storage* s = context;
  const int failed = fsync(s->temp_fd) != 0;
  close(s->temp_fd);
  if (failed) return 1;
  return rename(s->temp_path, s->path) != 0;
}

static int fail(const char* what, const ldp_status* status) {
  fprintf(stderr, "%s: code %d: %s\n", what, status->code, status->message);
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s STATE_FILE POLL_FILE UPLOAD_FILE\n", argv[0]);
    return 2;
  }
  printf("%s (ABI %d)\n", ldp_agent_version(), ldp_agent_abi_version());
  file_storage files = {.path = argv[1], .loaded = NULL, .temp_fd = -1};
  const ldp_storage storage = {.context = &files,
                               .load = load_state,
                               .write = write_state,
                               .sync = sync_state};
  ldp_agent_options options;
  memset(&options, 0, sizeof(options)); /* 0 = the safe defaults */
  options.record_json = "{\"color\": \"green\"}";
  ldp_status status;
  ldp_agent* agent = NULL;
  if (ldp_agent_open(&options, &storage, &agent, &status) != LDP_OK) {
    return fail("open", &status);
  }
  uint8_t* poll = NULL;
  size_t poll_size = 0;
  if (read_file(argv[2], &poll, &poll_size) != 0) {
    fprintf(stderr, "cannot read %s\n", argv[2]);
    return 1;
  }
  int answered = 0, refused = 0;
  const int code = ldp_agent_answer_poll(agent, poll, poll_size, &answered,
                                         &refused, &status);
  free(poll);
  if (code != LDP_OK) return fail("answer", &status);
  ldp_buffer upload = {NULL, 0};
  if (ldp_agent_next_upload(agent, 42, &upload, &status) != LDP_OK) {
    return fail("next upload", &status);
  }
  FILE* out = fopen(argv[3], "wb");
  if (out == NULL || fwrite(upload.data, 1, upload.size, out) != upload.size ||
      fclose(out) != 0) {
    fprintf(stderr, "cannot write %s\n", argv[3]);
    return 1;
  }
  int64_t spent = 0;
  if (ldp_agent_spent(agent, 0, &spent, NULL, &status) != LDP_OK) {
    return fail("spent", &status);
  }
  printf("answered %d, refused %d, upload %zu bytes, spent %lld nano-epsilon\n",
         answered, refused, upload.size, (long long)spent);
  ldp_buffer_free(&upload);
  ldp_agent_close(agent);
  free(files.loaded);
  return 0;
}
