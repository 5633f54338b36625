/* The text of a remembered NVRTC program (nvrtc_remembered.h): written from
 * a tracked program, read back with every field checked (types, counts,
 * the image it must name). No CUDA header, no shim state: the fuzz target
 * links this file alone. */
#include "hooks/nvrtc_remembered.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void aoe_nvrtc_remembered_name(uint64_t hash, size_t size, char *out, size_t len)
{
    snprintf(out, len, "%016" PRIx64 "-%zu.json", hash, size);
}

static const char *kind_text(int kind)
{
    return kind == AOE_NVRTC_IMAGE_PTX ? "ptx" : "cubin";
}

/* s as a JSON string, or null when s is NULL: the item, or NULL (memory). */
static cJSON *text_or_null(const char *s)
{
    return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static int add(cJSON *to, const char *key, cJSON *item)
{
    if (!item) return 0;
    if (key) return cJSON_AddItemToObject(to, key, item);
    return cJSON_AddItemToArray(to, item);
}

char *aoe_nvrtc_remembered_format(const aoe_nvrtc_program *p, int kind, uint64_t hash, size_t size,
                                  const char *library, char *why, size_t wlen)
{
    size_t text = p->source ? strlen(p->source) : 0;
    for (int i = 0; i < p->num_headers; i++)
        text += p->headers && p->headers[i] ? strlen(p->headers[i]) : 0;
    if (!p->source || text > AOE_NVRTC_REMEMBERED_MAX_SOURCE ||
        p->num_headers > AOE_NVRTC_REMEMBERED_MAX_ITEMS ||
        p->num_options > AOE_NVRTC_REMEMBERED_MAX_ITEMS ||
        p->num_name_expressions > AOE_NVRTC_REMEMBERED_MAX_ITEMS) {
        snprintf(why, wlen, "over %zu MiB of source or %d headers, options or name expressions",
                 AOE_NVRTC_REMEMBERED_MAX_SOURCE >> 20, AOE_NVRTC_REMEMBERED_MAX_ITEMS);
        return NULL;
    }
    char hex[17];
    snprintf(hex, sizeof hex, "%016" PRIx64, hash);
    cJSON *o = cJSON_CreateObject(), *img = cJSON_CreateObject();
    int ok = o && img && add(o, "format", cJSON_CreateString(AOE_NVRTC_REMEMBERED_FORMAT)) &&
             add(o, "version", cJSON_CreateNumber(AOE_NVRTC_REMEMBERED_VERSION)) &&
             add(o, "image", img);
    if (!ok) cJSON_Delete(img); /* not yet owned by o */
    ok = ok && add(img, "kind", cJSON_CreateString(kind_text(kind))) &&
         add(img, "hash", cJSON_CreateString(hex)) &&
         add(img, "size", cJSON_CreateNumber((double)size)) &&
         add(o, "name", text_or_null(p->name ? p->name : "default_program")) &&
         add(o, "source", cJSON_CreateString(p->source));
    cJSON *h = ok ? cJSON_AddArrayToObject(o, "headers") : NULL;
    ok = h != NULL;
    for (int i = 0; ok && i < p->num_headers; i++) {
        cJSON *e = cJSON_CreateObject();
        ok = add(h, NULL, e) &&
             add(e, "name", text_or_null(p->include_names ? p->include_names[i] : NULL)) &&
             add(e, "source", text_or_null(p->headers ? p->headers[i] : NULL));
    }
    cJSON *opts = ok ? cJSON_AddArrayToObject(o, "options") : NULL;
    ok = opts != NULL;
    for (int i = 0; ok && i < p->num_options; i++)
        ok = p->options && p->options[i] && add(opts, NULL, cJSON_CreateString(p->options[i]));
    cJSON *names = ok ? cJSON_AddArrayToObject(o, "name_expressions") : NULL;
    ok = names != NULL;
    for (int i = 0; ok && i < p->num_name_expressions; i++) {
        cJSON *e = cJSON_CreateObject();
        ok = add(names, NULL, e) &&
             add(e, "expression", cJSON_CreateString(p->name_expressions[i])) &&
             add(e, "lowered", text_or_null(p->lowered_names ? p->lowered_names[i] : NULL));
    }
    if (ok && library) ok = add(o, "nvrtc_library", cJSON_CreateString(library));
    char *out = ok ? cJSON_Print(o) : NULL;
    cJSON_Delete(o);
    if (!out) snprintf(why, wlen, "out of memory");
    return out;
}

void aoe_nvrtc_remembered_free(aoe_nvrtc_remembered *r)
{
    for (int i = 0; r->headers && i < r->num_headers; i++) free(r->headers[i]);
    for (int i = 0; r->include_names && i < r->num_headers; i++) free(r->include_names[i]);
    for (int i = 0; r->options && i < r->num_options; i++) free(r->options[i]);
    for (int i = 0; r->name_expressions && i < r->num_name_expressions; i++)
        free(r->name_expressions[i]);
    for (int i = 0; r->lowered_names && i < r->num_name_expressions; i++) free(r->lowered_names[i]);
    free(r->headers);
    free(r->include_names);
    free(r->options);
    free(r->name_expressions);
    free(r->lowered_names);
    free(r->name);
    free(r->source);
    free(r->nvrtc_library);
    memset(r, 0, sizeof *r);
}

/* ---- reading ---- */

typedef struct {
    char *why;
    size_t wlen;
    int bad; /* set at the first problem (why keeps the first) */
} checker;

static void bad(checker *c, const char *what)
{
    if (!c->bad) snprintf(c->why, c->wlen, "%s", what);
    c->bad = 1;
}

/* A copy of item's string (NULL for null when allowed); NULL and c->bad otherwise. */
static char *string_of(checker *c, const cJSON *item, int null_ok, const char *what)
{
    if (null_ok && cJSON_IsNull(item)) return NULL;
    if (!cJSON_IsString(item) || !item->valuestring) {
        bad(c, what);
        return NULL;
    }
    char *s = strdup(item->valuestring);
    if (!s) bad(c, "out of memory");
    return s;
}

/* The array o[key] (at most MAX_ITEMS entries): its count, or -1 (bad). */
static int array_of(checker *c, const cJSON *o, const char *key, const cJSON **arr)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    int n = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1;
    if (n < 0 || n > AOE_NVRTC_REMEMBERED_MAX_ITEMS) {
        bad(c, "a list missing, of the wrong type or too long");
        return -1;
    }
    *arr = a;
    return n;
}

static char **strings(checker *c, int n)
{
    char **v = calloc((size_t)n + 1, sizeof *v);
    if (!v) bad(c, "out of memory");
    return v;
}

static void read_image(checker *c, const cJSON *o, uint64_t hash, size_t size, int *kind)
{
    const cJSON *img = cJSON_GetObjectItemCaseSensitive(o, "image");
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(img, "kind");
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(img, "hash");
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(img, "size");
    char hex[17];
    snprintf(hex, sizeof hex, "%016" PRIx64, hash);
    if (!cJSON_IsObject(img) || !cJSON_IsString(k) || !cJSON_IsString(h) || !cJSON_IsNumber(s)) {
        bad(c, "no image, or one of the wrong type");
        return;
    }
    *kind = !strcmp(k->valuestring, "cubin") ? AOE_NVRTC_IMAGE_CUBIN
            : !strcmp(k->valuestring, "ptx") ? AOE_NVRTC_IMAGE_PTX
                                             : 0;
    if (!*kind) bad(c, "an unknown image kind");
    if (strcmp(h->valuestring, hex) || s->valuedouble != (double)size)
        bad(c, "it names another image");
}

static void read_program(checker *c, const cJSON *o, aoe_nvrtc_remembered *r)
{
    const cJSON *a, *e;
    int n;
    r->name = string_of(c, cJSON_GetObjectItemCaseSensitive(o, "name"), 0, "no name");
    r->source = string_of(c, cJSON_GetObjectItemCaseSensitive(o, "source"), 0, "no source");
    if (!c->bad && (n = array_of(c, o, "headers", &a)) >= 0 && (r->headers = strings(c, n)) &&
        (r->include_names = strings(c, n))) {
        r->num_headers = n;
        int i = 0;
        cJSON_ArrayForEach(e, a)
        {
            if (!cJSON_IsObject(e)) bad(c, "a header is not an object");
            r->include_names[i] = string_of(c, cJSON_GetObjectItemCaseSensitive(e, "name"), 1,
                                            "a header's name is not a string");
            r->headers[i] = string_of(c, cJSON_GetObjectItemCaseSensitive(e, "source"), 1,
                                      "a header's source is not a string");
            if (c->bad || ++i == n) break;
        }
    }
    if (!c->bad && (n = array_of(c, o, "options", &a)) >= 0 && (r->options = strings(c, n))) {
        r->num_options = n;
        int i = 0;
        cJSON_ArrayForEach(e, a)
        {
            r->options[i] = string_of(c, e, 0, "an option is not a string");
            if (c->bad || ++i == n) break;
        }
    }
    if (!c->bad && (n = array_of(c, o, "name_expressions", &a)) >= 0 &&
        (r->name_expressions = strings(c, n)) && (r->lowered_names = strings(c, n))) {
        r->num_name_expressions = n;
        int i = 0;
        cJSON_ArrayForEach(e, a)
        {
            r->name_expressions[i] = string_of(c, cJSON_GetObjectItemCaseSensitive(e, "expression"),
                                               0, "a name expression is not a string");
            r->lowered_names[i] = string_of(c, cJSON_GetObjectItemCaseSensitive(e, "lowered"), 1,
                                            "a lowered name is not a string");
            if (c->bad || ++i == n) break;
        }
    }
    const cJSON *lib = cJSON_GetObjectItemCaseSensitive(o, "nvrtc_library");
    if (!c->bad && lib) {
        r->nvrtc_library = string_of(c, lib, 0, "nvrtc_library is not a string");
        if (r->nvrtc_library && r->nvrtc_library[0] != '/')
            bad(c, "nvrtc_library is not an absolute path");
    }
}

int aoe_nvrtc_remembered_parse(const char *text, size_t len, uint64_t hash, size_t size,
                               aoe_nvrtc_remembered *out, char *why, size_t wlen)
{
    checker c = {why, wlen, 0};
    memset(out, 0, sizeof *out);
    if (len > AOE_NVRTC_REMEMBERED_MAX_FILE) {
        bad(&c, "too large");
        return -1;
    }
    cJSON *o = cJSON_ParseWithLength(text, len);
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(o, "format");
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(o, "version");
    if (!cJSON_IsObject(o))
        bad(&c, "not a JSON object");
    else if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, AOE_NVRTC_REMEMBERED_FORMAT) ||
             !cJSON_IsNumber(ver) || ver->valuedouble != AOE_NVRTC_REMEMBERED_VERSION)
        bad(&c, "not format " AOE_NVRTC_REMEMBERED_FORMAT " version 1");
    if (!c.bad) read_image(&c, o, hash, size, &out->image_kind);
    if (!c.bad) read_program(&c, o, out);
    size_t total = out->source ? strlen(out->source) : 0;
    for (int i = 0; !c.bad && i < out->num_headers; i++)
        total += out->headers[i] ? strlen(out->headers[i]) : 0;
    if (!c.bad && total > AOE_NVRTC_REMEMBERED_MAX_SOURCE) bad(&c, "too much source");
    cJSON_Delete(o);
    if (c.bad) aoe_nvrtc_remembered_free(out);
    return c.bad ? -1 : 0;
}
