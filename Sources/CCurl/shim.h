// libcurl's C API, plus static inline shims for what Swift cannot call: curl_easy_setopt,
// curl_multi_setopt and curl_easy_getinfo are variadic, so each argument type gets a wrapper.
#ifndef NOSTRPUSHKIT_CCURL_SHIM_H
#define NOSTRPUSHKIT_CCURL_SHIM_H
#include <curl/curl.h>

/// curl_easy_setopt with a long argument.
static inline CURLcode nostrpush_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
  return curl_easy_setopt(handle, option, value);
}
/// curl_easy_setopt with a string argument (libcurl copies strings).
static inline CURLcode nostrpush_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
  return curl_easy_setopt(handle, option, value);
}
/// curl_easy_setopt with a pointer argument.
static inline CURLcode nostrpush_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
  return curl_easy_setopt(handle, option, value);
}
/// curl_easy_setopt with a curl_off_t argument.
static inline CURLcode nostrpush_curl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
  return curl_easy_setopt(handle, option, value);
}
/// The write and header callbacks' type.
typedef size_t (*nostrpush_curl_write_callback)(char *data, size_t size, size_t count, void *user);
/// curl_easy_setopt with a write or header callback.
static inline CURLcode nostrpush_curl_easy_setopt_write(CURL *handle, CURLoption option,
                                                        nostrpush_curl_write_callback value) {
  return curl_easy_setopt(handle, option, value);
}
/// curl_multi_setopt with a long argument.
static inline CURLMcode nostrpush_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
  return curl_multi_setopt(multi, option, value);
}
/// curl_easy_getinfo for a long.
static inline CURLcode nostrpush_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
  return curl_easy_getinfo(handle, info, value);
}
/// curl_easy_getinfo for a pointer (CURLINFO_PRIVATE).
static inline CURLcode nostrpush_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
  return curl_easy_getinfo(handle, info, value);
}
/// The easy handle and result of a CURLMSG_DONE message (the union Swift cannot read).
static inline CURL *nostrpush_curl_msg_done(CURLMsg *message, CURLcode *result) {
  if (message->msg != CURLMSG_DONE) return NULL;
  *result = message->data.result;
  return message->easy_handle;
}
#endif
