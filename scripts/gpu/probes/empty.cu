extern "C" __global__ void empty(int x) { if (x == 12345) asm volatile("trap;"); }
