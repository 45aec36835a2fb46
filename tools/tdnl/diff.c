// SPDX-License-Identifier: GPL-2.0
/*
 * tdnl diff A.json B.json: two results saved by tdnl stat -o, side by
 * side, with each node's change in percentage points: the before and after
 * of an optimisation.  The files are read with json-c (Debian's libjson-c).
 * Each model's group of A is compared with B's group of the same model.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include "tdnl.h"

#define DIFF_MAX_BYTES	(64 << 20)

static const char *const levels[] = { "level1", "level2", "level3", "level4" };

static json_object *load(const char *path)
{
	json_object *o = NULL, *g;
	struct stat st;

	/* a saved result: not a device or a pipe that never ends */
	errno = 0;
	if (stat(path, &st) || !S_ISREG(st.st_mode) || st.st_size > DIFF_MAX_BYTES) {
		fprintf(stderr, "tdnl: diff: '%s' is not a file saved by tdnl stat -o (%s)\n",
			path, errno ? strerror(errno) : "not a regular file, or too large");
		return NULL;
	}
	o = json_object_from_file(path);
	if (!o)
		fprintf(stderr, "tdnl: diff: '%s' is not JSON\n", path);
	else if (!json_object_object_get_ex(o, "groups", &g) ||
		 !json_object_is_type(g, json_type_array))
		fprintf(stderr, "tdnl: diff: '%s' is not a tdnl stat result (no \"groups\")\n", path);
	else
		return o;
	json_object_put(o);
	return NULL;
}

static json_object *group_of(json_object *o, const char *model)
{
	json_object *gs, *g, *m;
	size_t i;

	if (!json_object_object_get_ex(o, "groups", &gs) ||
	    !json_object_is_type(gs, json_type_array))
		return NULL;
	for (i = 0; i < json_object_array_length(gs); i++) {
		g = json_object_array_get_idx(gs, i);
		if (json_object_object_get_ex(g, "model", &m) &&
		    !strcmp(json_object_get_string(m), model))
			return g;
	}
	return NULL;
}

static double num(json_object *o, const char *level, const char *node)
{
	json_object *l, *v;

	if (!o || !json_object_object_get_ex(o, level, &l) ||
	    !json_object_is_type(l, json_type_object) ||
	    !json_object_object_get_ex(l, node, &v) || !v)
		return NAN;
	return json_object_get_double(v);
}

static const char *cmdline(json_object *o, char *buf, size_t len)
{
	json_object *c;
	size_t i, n = 0;

	buf[0] = '\0';
	if (!json_object_object_get_ex(o, "command", &c) ||
	    !json_object_is_type(c, json_type_array))
		return buf;
	for (i = 0; i < json_object_array_length(c) && n + 1 < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? " " : "",
			      json_object_get_string(json_object_array_get_idx(c, i)));
	return buf;
}

/* a number, or @none for n/a */
static void val(double v, const char *none)
{
	if (isnan(v))
		fputs(none, stdout);
	else
		printf("%.4f", v);
}

static void row(enum tdnl_fmt fmt, const char *model, int level, const char *node,
		double a, double b, bool *first)
{
	double d = isnan(a) || isnan(b) ? NAN : b - a;

	if (isnan(a) && isnan(b))
		return;
	node = tdnl_name(model, node);
	if (fmt == TDNL_JSON) {
		printf("%s{\"model\":\"%s\",\"level\":%d,\"node\":\"%s\",\"a\":", *first ? "" : ",",
		       model, level, node);
		val(a, "null");
		printf(",\"b\":");
		val(b, "null");
		printf(",\"change\":");
		val(d, "null");
		printf("}");
	} else if (fmt == TDNL_CSV) {
		printf("%s,%d,%s,", model, level, node);
		val(a, "");
		printf(",");
		val(b, "");
		printf(",");
		val(d, "");
		printf("\n");
	} else {
		printf("  %*s%-*s", 2 * (level - 1), "", 26 - 2 * (level - 1), node);
		if (isnan(a))
			printf("%9s", "n/a");
		else
			printf("%9.2f", a);
		if (isnan(b))
			printf("%9s", "n/a");
		else
			printf("%9.2f", b);
		if (isnan(d))
			printf("\n");
		else
			printf("  %+8.2f pp\n", d);
	}
	*first = false;
}

/* the nodes of one level: A's in its order, then those only B has */
static void level_rows(enum tdnl_fmt fmt, const char *model, json_object *ga,
		       json_object *gb, int lvl, bool *first)
{
	json_object *la = NULL, *lb = NULL;

	json_object_object_get_ex(ga, levels[lvl], &la);
	json_object_object_get_ex(gb, levels[lvl], &lb);
	if (la && json_object_is_type(la, json_type_object)) {
		json_object_object_foreach(la, node, v) {
			(void)v;
			row(fmt, model, lvl + 1, node, num(ga, levels[lvl], node),
			    num(gb, levels[lvl], node), first);
		}
	}
	if (lb && json_object_is_type(lb, json_type_object)) {
		json_object_object_foreach(lb, node, v) {
			(void)v;
			if (!la || !json_object_object_get_ex(la, node, NULL))
				row(fmt, model, lvl + 1, node, NAN,
				    num(gb, levels[lvl], node), first);
		}
	}
}

/**
 * tdnl_cmd_diff() - tdnl diff A.json B.json
 * @argc: the arguments after "diff"
 * @argv: them
 *
 * Return: 0, 1 when a file cannot be read or the two share no model, 2 on
 * bad usage.
 */
int tdnl_cmd_diff(int argc, char **argv)
{
	enum tdnl_fmt fmt = tdnl_format();
	json_object *a, *b, *gs, *m;
	char ca[256], cb[256];
	bool first = true;
	unsigned int shared = 0;
	size_t i;
	int lvl, ret = TDNL_EXIT_ERR;

	if (argc != 2)
		return tdnl_bad("diff: give two files saved by tdnl stat -o: tdnl diff A.json B.json");
	a = load(argv[0]);
	if (!a)
		return TDNL_EXIT_ERR;
	b = load(argv[1]);
	if (!b) {
		json_object_put(a);
		return TDNL_EXIT_ERR;
	}
	if (fmt == TDNL_JSON)
		printf("[");
	else if (fmt == TDNL_CSV)
		printf("model,level,node,a,b,change\n");
	else
		printf("\n A: %s\n B: %s\n", cmdline(a, ca, sizeof(ca)), cmdline(b, cb, sizeof(cb)));
	json_object_object_get_ex(a, "groups", &gs);
	for (i = 0; i < json_object_array_length(gs); i++) {
		json_object *ga = json_object_array_get_idx(gs, i), *gb;
		const char *model;

		if (!json_object_is_type(ga, json_type_object) ||
		    !json_object_object_get_ex(ga, "model", &m))
			continue;
		model = json_object_get_string(m);
		gb = group_of(b, model);
		if (!gb)
			continue;
		shared++;
		if (fmt == TDNL_TEXT)
			printf("\n %s: %% of slots (Levels 3/4: of clock ticks)      A        B    change\n",
			       model);
		for (lvl = 0; lvl < 4; lvl++)
			level_rows(fmt, model, ga, gb, lvl, &first);
	}
	if (fmt == TDNL_JSON)
		printf("]\n");
	else if (fmt == TDNL_TEXT)
		printf("\n");
	if (!shared)
		fprintf(stderr, "tdnl: diff: '%s' and '%s' have no CPU model in common\n",
			argv[0], argv[1]);
	else
		ret = 0;
	json_object_put(a);
	json_object_put(b);
	return ret;
}
