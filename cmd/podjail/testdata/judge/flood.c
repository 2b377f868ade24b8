/* The right answer, then blank lines for ever: the comparator finds no
 * difference, so the output limit stops it (OLE). */
#include <stdio.h>
int main(void) {
	fputs("42\n", stdout);
	for (;;) fputs("\n\n\n\n\n\n\n\n", stdout);
}
