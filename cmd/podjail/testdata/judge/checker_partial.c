/* A testlib-convention checker that gives half the points. */
#include <stdio.h>
int main(void) {
	fprintf(stderr, "points 0.5 half done\n");
	return 7;
}
