/* A checker that never ends: stopped at its own limit, CF. */
int main(void) {
	volatile unsigned long x = 0;
	for (;;) x++;
}
