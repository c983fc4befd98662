/* suggest: the nearest known name to a misspelt one (suggest.h). */
#include "suggest.h"

#include <stdint.h>
#include <string.h>

#define SUGGEST_MAX_LEN 64 /* names are short; a longer word is not a typo of one */

size_t suggest_distance(const char *a, const char *b)
{
	/* optimal string alignment: a swap of two neighbours is one edit, so that rnu is a typo
	 * of run and tpc of tcp, not two edits in a three-letter name */
	size_t la = strlen(a), lb = strlen(b), rows[3][SUGGEST_MAX_LEN + 1];
	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return SIZE_MAX;
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		size_t *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
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
