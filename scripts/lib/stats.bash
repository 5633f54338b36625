# Helpers the demo and the benchmark scripts share; sourced from the
# repository root (". scripts/lib/stats.bash"), not run.

# The median of the numbers on stdin, one per line.
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# The kernel time in microseconds that an example client printed
# ("kernel_us=N") in the output given as $1.
kernel_us() { grep -o 'kernel_us=[0-9.]*' <<<"$1" | cut -d= -f2; }

# $1 / $2 (a time without AOE over the time with it: the speed-up), 0 when $2
# is not positive.
ratio() { awk -v u="$1" -v t="$2" 'BEGIN { print (t > 0 ? u / t : 0) }'; }
