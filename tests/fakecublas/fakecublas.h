/* What the fake cuBLAS / cuBLASLt export beyond the real API: the simulated
 * time (microseconds, from the catalogue's cost model) of the last GEMM each
 * library computed, the sum over all and the count. A tuner measuring on the
 * fakes reads these (dlsym on the library it loaded) around the call it
 * times; the real libraries do not have them (dlsym gives NULL there). */
#ifndef FAKECUBLAS_H
#define FAKECUBLAS_H

double fakecublasLt_last_time_us(void);
double fakecublasLt_total_time_us(void);
unsigned long long fakecublasLt_matmul_count(void);
/* The algorithm id and split-K of the last cublasLtMatmul computed (-1: none). */
int fakecublasLt_last_algo_id(void);
int fakecublasLt_last_split_k(void);

double fakecublas_last_time_us(void);
double fakecublas_total_time_us(void);
unsigned long long fakecublas_gemm_count(void);

#endif
