/* Standard base64 (RFC 4648, with padding) for job files. Linear time and
 * streaming-friendly: encoding works in chunks of 3 bytes, so a caller can
 * write a large buffer piece by piece without building one huge string. */
#ifndef AOE_BASE64_H
#define AOE_BASE64_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Characters needed to encode n bytes (without NUL). */
size_t aoe_b64_encoded_len(size_t n);

/* Encodes n bytes into out (aoe_b64_encoded_len(n) characters, no NUL). */
void aoe_b64_encode(const uint8_t *in, size_t n, char *out);

/* Streams the encoding of n bytes to f. Returns 0, or -1 on a write error. */
int aoe_b64_write(FILE *f, const uint8_t *in, size_t n);

/* Decodes len characters (padding required, no whitespace). Returns a malloc'ed
 * buffer (at least 1 byte allocated, so an empty input is not NULL) and its
 * size in *outlen, or NULL if the text is not valid base64 or memory is short. */
uint8_t *aoe_b64_decode(const char *in, size_t len, size_t *outlen);

#endif
