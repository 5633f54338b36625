#include "core/base64.h"

#include <stdlib.h>

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t aoe_b64_encoded_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

static void encode_group(const uint8_t *in, size_t n, char out[4])
{
    uint32_t v = (uint32_t)in[0] << 16;
    if (n > 1) v |= (uint32_t)in[1] << 8;
    if (n > 2) v |= in[2];
    out[0] = b64_alphabet[(v >> 18) & 63];
    out[1] = b64_alphabet[(v >> 12) & 63];
    out[2] = n > 1 ? b64_alphabet[(v >> 6) & 63] : '=';
    out[3] = n > 2 ? b64_alphabet[v & 63] : '=';
}

void aoe_b64_encode(const uint8_t *in, size_t n, char *out)
{
    for (size_t i = 0; i < n; i += 3, out += 4) encode_group(in + i, n - i < 3 ? n - i : 3, out);
}

int aoe_b64_write(FILE *f, const uint8_t *in, size_t n)
{
    enum { CHUNK = 3 * 4096 }; /* whole groups per chunk: no padding mid-stream */
    char buf[CHUNK / 3 * 4];
    for (size_t i = 0; i < n; i += CHUNK) {
        size_t m = n - i < CHUNK ? n - i : CHUNK;
        aoe_b64_encode(in + i, m, buf);
        size_t len = aoe_b64_encoded_len(m);
        if (fwrite(buf, 1, len, f) != len) return -1;
    }
    return 0;
}

/* Decoding table: 0..63, or -1 for a character outside the alphabet (a
 * lookup per character keeps decoding tens of MB fast). */
static const signed char b64_table[256] = {
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 62, -1, -1, -1, 63,
    52, 53, 54, 55, 56, 57, 58, 59, 60, 61, -1, -1, -1, -1, -1, -1, -1, 0,  1,  2,  3,  4,  5,  6,
    7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, -1, -1, -1, -1, -1,
    -1, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48,
    49, 50, 51, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
};

static int b64_value(unsigned char c)
{
    return b64_table[c];
}

uint8_t *aoe_b64_decode(const char *in, size_t len, size_t *outlen)
{
    if (len % 4) return NULL;
    size_t pad = 0;
    if (len && in[len - 1] == '=') pad++;
    if (len > 1 && in[len - 2] == '=') pad++;
    size_t n = len / 4 * 3 - pad;
    uint8_t *out = malloc(n ? n : 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        int last = i + 4 == len;
        uint32_t v = 0;
        for (int k = 0; k < 4; k++) {
            unsigned char c = (unsigned char)in[i + k];
            int d = b64_value(c);
            /* '=' only as the final one or two characters of the text */
            if (d < 0 && !(c == '=' && last && k >= 4 - (int)pad)) goto bad;
            v = v << 6 | (uint32_t)(d < 0 ? 0 : d);
        }
        /* unused bits of a padded group must be zero (canonical encoding) */
        if (last && pad == 1 && (v & 0xff)) goto bad;
        if (last && pad == 2 && (v & 0xffff)) goto bad;
        out[o++] = (uint8_t)(v >> 16);
        if (o < n) out[o++] = (uint8_t)(v >> 8);
        if (o < n) out[o++] = (uint8_t)v;
    }
    *outlen = n;
    return out;
bad:
    free(out);
    return NULL;
}
