/*
 * sendfile(2) for Node (bench/zero-copy.ts): sendfile(outFd, inFd, offset, count) returns the
 * bytes sent (0 or more; fewer than asked when the socket's send buffer fills) or -errno
 * (-EAGAIN when nothing could be sent). A measurement for issue 19, not part of the broker.
 */
#include <errno.h>
#include <node_api.h>
#include <sys/sendfile.h>
#include <sys/types.h>

static napi_value send_file(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value args[4];
  if (napi_get_cb_info(env, info, &argc, args, NULL, NULL) != napi_ok || argc != 4) {
    napi_throw_type_error(env, NULL, "sendfile(outFd, inFd, offset, count)");
    return NULL;
  }
  int32_t out_fd, in_fd;
  int64_t offset, count;
  napi_get_value_int32(env, args[0], &out_fd);
  napi_get_value_int32(env, args[1], &in_fd);
  napi_get_value_int64(env, args[2], &offset);
  napi_get_value_int64(env, args[3], &count);
  off_t off = (off_t)offset;
  ssize_t n = sendfile(out_fd, in_fd, &off, (size_t)count);
  napi_value result;
  napi_create_int64(env, n < 0 ? -(int64_t)errno : (int64_t)n, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "sendfile", NAPI_AUTO_LENGTH, send_file, NULL, &fn);
  napi_set_named_property(env, exports, "sendfile", fn);
  return exports;
}
