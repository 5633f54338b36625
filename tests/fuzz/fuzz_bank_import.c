/* libFuzzer harness: the bank's JSON importer (parse and validate, no LMDB).
 * Every accepted entry must encode and decode back to the same record. */
// fuzz-sources: store/bank_json.c store/bank_walk.c store/bank_txn.c store/bank_rw.c
// fuzz-sources: store/bank_open.c store/record.c store/record_check.c store/opkey.c
// fuzz-sources: core/log.c core/config.c core/fs_safe.c core/json_text.c
#include "store/bank_admin.h"
#include "store/record_format.h"

#include <stdlib.h>
#include <string.h>

static int on_entry(void *ctx, size_t index, const aoe_bank_entry *e)
{
    (void)ctx, (void)index;
    uint8_t buf[AOE_RECORD_ENCODED_MAX];
    aoe_record back;
    char err[256];
    size_t n = aoe_record_encode(&e->rec, buf, sizeof buf);
    if (n > sizeof buf || aoe_record_decode(buf, n, &back, err, sizeof err)) abort();
    if (back.tuned_us != e->rec.tuned_us || strcmp(back.kernel_name, e->rec.kernel_name)) abort();
    if (!e->fingerprint[0] || strlen(e->fingerprint) >= AOE_FINGERPRINT_LEN) abort();
    return 0;
}

static void on_reject(void *ctx, size_t index, const char *reason)
{
    (void)ctx, (void)index;
    if (!reason[0]) abort(); /* every reject says why */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    aoe_bank_parse_json((const char *)data, size, on_entry, on_reject, NULL, err, sizeof err);
    return 0;
}
