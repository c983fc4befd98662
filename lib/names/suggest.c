/* suggest: the nearest known name to a misspelt one (suggest.h). */
#include "suggest.h"

#include <stdint.h>
#include <string.h>

#define SUGGEST_MAX_LEN 64 /* names are short; a longer word is not a typo of one */

size_t suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[SUGGEST_MAX_LEN + 1];
	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			if (up + 1 < best)
				best = up + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *suggest_nearest(const char *word, const char *(*next)(const void *ctx, size_t i),
			    const void *ctx)
{
	/* a third of the name, at most 3 edits: m4.xlarg -> m4.xlarge, never c5 -> m4.large */
	size_t limit = strlen(word) / 3, best = SIZE_MAX;
	const char *found = NULL, *cand;
	if (limit > 3)
		limit = 3;
	for (size_t i = 0; (cand = next(ctx, i)) != NULL; i++) {
		size_t d = suggest_distance(word, cand);
		if (d <= limit && d < best) {
			best = d;
			found = cand;
		}
	}
	return found;
}

struct among {
	const char *const *names;
	size_t n;
};

static const char *among_next(const void *ctx, size_t i)
{
	const struct among *a = ctx;
	return i < a->n ? a->names[i] : NULL;
}

const char *suggest_among(const char *word, const char *const *names, size_t n)
{
	struct among a = {names, n};
	return suggest_nearest(word, among_next, &a);
}
