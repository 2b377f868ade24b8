/*
 * Guesses 0, which the validator rejects at once, then crashes on the
 * end of its input: a team that dies after the validator rejected it is
 * judged wrong answer, not run-time error (problemtools' rule).
 */
#include <signal.h>
#include <stdio.h>

int main(void)
{
	char reply[16];

	printf("0\n");
	fflush(stdout);
	if (scanf("%15s", reply) != 1)
		raise(SIGSEGV);
	return 0;
}
