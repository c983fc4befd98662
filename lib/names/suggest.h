/* suggest: "did you mean ...?" for a misspelt name — an option, an axis, an attribute, an
 * instance type — by edit distance against the names that exist. */
#ifndef NS_SUGGEST_H
#define NS_SUGGEST_H

#include <stddef.h>

/* Edit distance of two strings of at most 64 bytes (optimal string alignment: insertions,
 * deletions, substitutions and swaps of neighbours); SIZE_MAX for longer ones. */
size_t suggest_distance(const char *a, const char *b);

/* The candidate nearest to word within a third of its length and at most 3 edits (a typo,
 * not another name: streams for stream, never rate for mss), NULL when none is that near;
 * the word itself when it is a candidate.
 * next(ctx, i) gives the i-th candidate and NULL past the last. */
const char *suggest_nearest(const char *word, const char *(*next)(const void *ctx, size_t i),
			    const void *ctx);

/* The same over an array of n names. */
const char *suggest_among(const char *word, const char *const *names, size_t n);

#endif
