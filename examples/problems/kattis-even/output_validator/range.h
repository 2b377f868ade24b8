/* range.h: reading one integer token, for validate.c. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* integer parses s as a decimal integer of at most 18 digits; 0 when it is not one. */
static int integer(const char *s, long long *v)
{
	char *end;

	if (strlen(s) > 19 || !(isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1]))))
		return 0;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno == 0 && *end == '\0';
}
