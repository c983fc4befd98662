/* search_json: see search_json.h and schemas/search-result.md. */
#include "search_json.h"

const char *search_phase_name(enum search_phase ph)
{
	switch (ph) {
	case SEARCH_PHASE_MAX: return "max";
	case SEARCH_PHASE_INITIAL: return "initial";
	case SEARCH_PHASE_FINAL: return "final";
	}
	return "?";
}

void search_json_bounds(struct jsonw *w, const struct search_cfg *c)
{
	uint32_t trials;
	double secs;
	search_bounds(c, c->max_load > 0 && c->min_load > 0 ? c->max_load / c->min_load : 1000,
		      &trials, &secs);
	jsonw_obj_open(w);
	jsonw_kv_uint(w, "max_trials", trials);
	jsonw_kv_double(w, "max_seconds", secs);
	jsonw_obj_close(w);
}

static void write_settings(struct jsonw *w, const struct search_cfg *c)
{
	jsonw_obj_open(w);
	jsonw_key(w, "goals");
	jsonw_arr_open(w);
	for (uint32_t i = 0; i < c->n_goals; i++) {
		jsonw_obj_open(w);
		jsonw_kv_double(w, "loss_ratio", c->goals[i].loss_ratio);
		jsonw_kv_double(w, "exceed_ratio", c->goals[i].exceed_ratio);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_kv_double(w, "goal_width", c->goal_width);
	jsonw_kv_double(w, "initial_duration_s", c->initial_duration_s);
	jsonw_kv_double(w, "final_duration_s", c->final_duration_s);
	jsonw_kv_double(w, "duration_sum_s", c->duration_sum_s);
	jsonw_kv_double(w, "min_pps", c->min_load);
	jsonw_kv_double(w, "max_pps", c->max_load);
	jsonw_obj_close(w);
}

void search_json_write(struct jsonw *w, const struct search_cfg *c, const struct probe_params *p,
		       const struct search_result *r, double elapsed_s)
{
	uint32_t len = p->length ? p->length : NS_UDP_DEFAULT_LEN;
	jsonw_obj_open(w);
	jsonw_kv_uint(w, "version", 1);
	jsonw_kv_str(w, "host", p->host);
	jsonw_kv_uint(w, "port", p->port);
	jsonw_kv_str(w, "protocol", "udp");
	jsonw_kv_uint(w, "length", len);
	jsonw_kv_uint(w, "streams", p->streams);
	jsonw_kv_str(w, "direction", ns_dir_name(p->dir));
	jsonw_key(w, "settings");
	write_settings(w, c);
	jsonw_key(w, "bounds");
	search_json_bounds(w, c);
	jsonw_kv_double(w, "min_load_pps", r->min_load);
	jsonw_kv_double(w, "max_load_pps", r->max_load);
	jsonw_kv_double(w, "mrr_pps", r->mrr_pps);
	jsonw_kv_uint(w, "n_trials", r->n_trials);
	jsonw_kv_double(w, "trial_seconds", r->trial_seconds);
	jsonw_kv_double(w, "elapsed_s", elapsed_s);
	jsonw_key(w, "goals");
	jsonw_arr_open(w);
	for (uint32_t i = 0; i < r->n_goals; i++) {
		const struct search_goal_result *g = &r->goals[i];
		jsonw_obj_open(w);
		jsonw_kv_double(w, "loss_ratio", g->goal.loss_ratio);
		jsonw_kv_double(w, "exceed_ratio", g->goal.exceed_ratio);
		jsonw_kv_bool(w, "met", g->met);
		jsonw_kv_bool(w, "converged", g->converged);
		if (g->met)
			jsonw_kv_double(w, "lower_pps", g->lower);
		else
			jsonw_kv_str(w, "lower_pps", NULL);
		if (g->upper > 0)
			jsonw_kv_double(w, "upper_pps", g->upper);
		else
			jsonw_kv_str(w, "upper_pps", NULL);
		jsonw_kv_double(w, "conditional_pps", g->met ? g->conditional_pps : 0);
		jsonw_kv_double(w, "conditional_bps", g->met ? g->conditional_pps * len * 8.0 : 0);
		jsonw_kv_uint(w, "trials", g->trials);
		jsonw_kv_bool(w, "sender_limited", g->sender_limited);
		if (g->sender_limited) {
			jsonw_kv_double(w, "sender_max_pps", g->sender_max_pps);
			if (g->unreached_pps > 0)
				jsonw_kv_double(w, "unreached_pps", g->unreached_pps);
			else
				jsonw_kv_str(w, "unreached_pps", NULL);
			jsonw_kv_str(w, "sender_cause", g->sender_cause[0] ? g->sender_cause : NULL);
			if (g->at_least_pps > 0)
				jsonw_kv_double(w, "at_least_pps", g->at_least_pps);
			else
				jsonw_kv_str(w, "at_least_pps", NULL);
		} else {
			jsonw_kv_str(w, "sender_max_pps", NULL);
			jsonw_kv_str(w, "unreached_pps", NULL);
			jsonw_kv_str(w, "sender_cause", NULL);
			jsonw_kv_str(w, "at_least_pps", NULL);
		}
		jsonw_kv_str(w, "note", g->note[0] ? g->note : NULL);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_key(w, "trials");
	jsonw_arr_open(w);
	for (uint32_t i = 0; i < r->n_trials; i++) {
		const struct search_trial *t = &r->trials[i];
		jsonw_obj_open(w);
		jsonw_kv_str(w, "phase", search_phase_name(t->phase));
		jsonw_kv_int(w, "goal", t->goal);
		jsonw_kv_double(w, "load_pps", t->load);
		jsonw_kv_double(w, "duration_s", t->duration_s);
		jsonw_kv_uint(w, "sent", t->sent);
		jsonw_kv_uint(w, "received", t->received);
		jsonw_kv_double(w, "loss_ratio", t->loss_ratio);
		jsonw_kv_double(w, "offered_pps", t->offered_pps);
		jsonw_kv_double(w, "forwarding_pps", t->forwarding_pps);
		jsonw_kv_double(w, "shortfall_ratio", t->shortfall_ratio);
		jsonw_kv_bool(w, "sender_short", t->sender_short);
		jsonw_kv_str(w, "sender_cause", t->sender_short && t->cause[0] ? t->cause : NULL);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_obj_close(w);
}
