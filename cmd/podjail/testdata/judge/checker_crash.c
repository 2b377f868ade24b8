/* A checker that crashes: CF, never the submission's fault. */
int main(void) {
	*(volatile int *)0 = 1;
	return 0;
}
