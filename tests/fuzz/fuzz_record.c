/* libFuzzer harness: the bank record decoder on arbitrary bytes. A record
 * that decodes must survive encode -> decode unchanged (parameter kinds
 * included, whether the bytes carried the kinds tag or not); one whose policy
 * reads as a GEMM algorithm configuration must survive configuration ->
 * policy -> configuration unchanged. */
// fuzz-sources: store/record.c store/record_check.c store/gemm_algo.c
#include "store/gemm_algo.h"
#include "store/record.h"
#include "store/record_format.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    aoe_record rec, again;
    char err[256];
    if (aoe_record_decode(data, size, &rec, err, sizeof err)) return 0;
    uint8_t buf[AOE_RECORD_ENCODED_MAX];
    size_t n = aoe_record_encode(&rec, buf, sizeof buf);
    if (n > sizeof buf) abort();
    if (aoe_record_decode(buf, n, &again, err, sizeof err)) abort();
    if (again.tuned_us != rec.tuned_us || again.policy.n_params != rec.policy.n_params ||
        strcmp(again.kernel_name, rec.kernel_name) || strcmp(again.summary, rec.summary))
        abort();
    for (uint32_t i = 0; i < rec.policy.n_params; i++)
        if (again.policy.params[i].kind != rec.policy.params[i].kind ||
            again.policy.params[i].value != rec.policy.params[i].value)
            abort();
    aoe_gemm_algo algo, algo2;
    aoe_policy p;
    if (!aoe_gemm_algo_from_policy(&rec.policy, &algo, err, sizeof err)) {
        if (aoe_gemm_algo_to_policy(&algo, &p, err, sizeof err) ||
            aoe_gemm_algo_from_policy(&p, &algo2, err, sizeof err) ||
            memcmp(&algo, &algo2, sizeof algo))
            abort();
    }
    return 0;
}
