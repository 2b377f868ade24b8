/* Burns processor time for ever: the processor ceiling stops it. */
int main(void) {
	volatile unsigned long x = 0;
	for (;;) x++;
}
