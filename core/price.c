/*
 * autosize: a partition's price schedule (policy `pricing:`) and the cost
 * of a rental under it (price.h).
 *
 * The parts are the ones GPU rental sites quote: whole 8-GPU nodes 15-20%
 * cheaper than single cards, a higher price for small jobs, off-peak
 * hours (00:00-08:00) down to 60%, discounts for rentals of 7+ days, a
 * 5-10% platform fee on top. Each number is the site's, never ours.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "autosize/price.h"
#include "policy_read.h"

#define PRICE_MAX 1e6
#define PRICE_DAY_H 24.0
/* A discount of 100% would make the GPUs free: a typo. */
#define PRICE_MAX_DISCOUNT 0.99
#define PRICE_MAX_FEE 1.0

static const char *const price_keys[] = {
	"price_per_node_hour", "min_gpus", "price_below_min_per_gpu_hour",
	"off_peak", "off_peak_discount", "rental_discounts", "platform_fee",
	NULL
};

static const char *const price_tier_keys[] = {"min_rental", "discount",
					      NULL};

static double price_overlap(double a, double b, double c, double d)
{
	double lo = a > c ? a : c, hi = b < d ? b : d;

	return hi > lo ? hi - lo : 0;
}

double autosize_price_off_peak_hours(double start_hour, double hours,
				     double from_h, double to_h)
{
	double len, end, days, rest, s, sum = 0;
	int k;

	if (!(hours > 0) || from_h == to_h)
		return 0;
	end = to_h > from_h ? to_h : to_h + PRICE_DAY_H;
	len = end - from_h;
	/* whole days hold one window each; the rest of a day, from the
	 * start's hour, meets at most the windows of that day and its
	 * neighbours */
	days = floor(hours / PRICE_DAY_H);
	rest = hours - days * PRICE_DAY_H;
	s = fmod(start_hour, PRICE_DAY_H);
	if (s < 0)
		s += PRICE_DAY_H;
	for (k = -1; k <= 1; k++)
		sum += price_overlap(s, s + rest, from_h + PRICE_DAY_H * k,
				     end + PRICE_DAY_H * k);
	return days * len + sum;
}

/* The rate per GPU-hour a size pays before time discounts. */
static double price_rate(const autosize_partition *part, int gpus_per_node,
			 double gpus, autosize_cost *c)
{
	const autosize_price_schedule *s = &part->pricing;
	int node = s->node_gpus > 0 ? s->node_gpus : part->gpus_per_node;

	/* a job capped below the node (plan_cap_gpn) shares it: by the GPU */
	if (s->per_node_hour > 0 && gpus_per_node == node) {
		c->whole_nodes = 1;
		return s->per_node_hour / node;
	}
	if (s->min_gpus > 0 && gpus < s->min_gpus) {
		c->below_min = 1;
		return s->below_min_per_gpu_hour;
	}
	return part->price_per_gpu_hour;
}

double autosize_price_cost(const autosize_partition *part, int nodes,
			   int gpus_per_node, double hours, double start_hour,
			   autosize_cost *out)
{
	const autosize_price_schedule *s = &part->pricing;
	double gpus = (double)nodes * gpus_per_node, paid;
	autosize_cost c;
	int i;

	memset(&c, 0, sizeof(c));
	if (nodes > 0 && gpus_per_node > 0 && hours > 0)
		c.gpu_hours = gpus * hours;
	if (c.gpu_hours > 0 && part->price_per_gpu_hour > 0) {
		c.list = c.gpu_hours * part->price_per_gpu_hour;
		c.rate_per_gpu_hour = price_rate(part, gpus_per_node, gpus, &c);
		paid = c.gpu_hours * c.rate_per_gpu_hour;
		if (s->off_peak) {
			c.off_peak_share = start_hour < 0
				? autosize_price_off_peak_hours(0, PRICE_DAY_H,
					s->off_peak_from_h, s->off_peak_to_h) /
				  PRICE_DAY_H
				: autosize_price_off_peak_hours(start_hour,
					hours, s->off_peak_from_h,
					s->off_peak_to_h) / hours;
			paid *= 1 - s->off_peak_discount * c.off_peak_share;
		}
		for (i = 0; i < s->n_rental; i++)
			if (hours >= s->rental[i].min_hours)
				c.rental_discount = s->rental[i].discount;
		paid *= 1 - c.rental_discount;
		c.fee = paid * s->platform_fee;
		c.total = paid + c.fee;
	}
	if (out)
		*out = c;
	return c.total;
}

/* One "HH:MM" of a range, 00:00 .. 24:00, into hours. */
static int price_clock(const char *p, const char **end, double *h)
{
	int hh, mm, n = 0;

	if (sscanf(p, "%2d:%2d%n", &hh, &mm, &n) != 2 || n != 5 ||
	    p[0] < '0' || p[0] > '9' || p[3] < '0' || p[3] > '9' ||
	    hh < 0 || hh > 24 || mm < 0 || mm > 59 || (hh == 24 && mm))
		return -1;
	*h = hh + mm / 60.0;
	*end = p + n;
	return 0;
}

/* `off_peak: HH:MM-HH:MM` in the site's local time (wraps midnight when
 * the end is earlier). */
static autosize_err price_window(const autosize_ytree *t,
				 const autosize_ynode *m,
				 autosize_price_schedule *s, autosize_error *e)
{
	const autosize_ynode *n = autosize_ynode_get(m, "off_peak");
	char text[32], ex[48];
	const char *p;
	autosize_err rc;
	int found;

	rc = autosize_ytree_str(t, m, "off_peak", AUTOSIZE_Y_OPTIONAL, text,
				sizeof(text), &found, e);
	if (rc || !found)
		return rc;
	p = text;
	if (price_clock(p, &p, &s->off_peak_from_h) || *p++ != '-' ||
	    price_clock(p, &p, &s->off_peak_to_h) || *p)
		return autosize_ytree_fail(t, n->line, e, AUTOSIZE_EINVAL,
			"key 'off_peak': '%s' is not a time range (expected HH:MM-HH:MM in the site's local time, e.g. 00:00-08:00)",
			autosize_ytree_excerpt(text, strlen(text), ex,
					       sizeof(ex)));
	if (s->off_peak_to_h == 24)
		s->off_peak_to_h = 0;
	if (fmod(s->off_peak_from_h, PRICE_DAY_H) == s->off_peak_to_h)
		return autosize_ytree_fail(t, n->line, e, AUTOSIZE_EINVAL,
			"key 'off_peak': '%s' is empty or the whole day (expected a window such as 00:00-08:00)",
			text);
	if (s->off_peak_from_h == 24)
		s->off_peak_from_h = 0;
	s->off_peak = 1;
	return AUTOSIZE_OK;
}

/* `rental_discounts:` a list of {min_rental: 7d, discount: 10%}, longer
 * rentals later and never with less discount. */
static autosize_err price_tiers(const autosize_ytree *t,
				const autosize_ynode *m,
				autosize_price_schedule *s, autosize_error *e)
{
	const autosize_ynode *seq, *it;
	autosize_rental_discount *r, *prev;
	autosize_err rc;

	rc = autosize_ytree_seq(t, m, "rental_discounts", AUTOSIZE_Y_OPTIONAL,
				AUTOSIZE_PRICE_MAX_TIERS, &seq, e);
	if (rc || !seq)
		return rc;
	for (it = seq->child; it; it = it->next) {
		r = &s->rental[s->n_rental];
		rc = autosize_ytree_check_keys(t, it, "rental_discounts",
					       price_tier_keys, e);
		if (!rc && !autosize_ynode_get(it, "min_rental"))
			rc = autosize_ytree_fail(t, it->line, e,
				AUTOSIZE_EINVAL,
				"key 'min_rental': missing (expected the shortest rental the discount applies to, e.g. 7d)");
		if (!rc)
			rc = policy_duration(t, it, "min_rental", 0,
					     &r->min_hours, e);
		if (!rc && !autosize_ynode_get(it, "discount"))
			rc = autosize_ytree_fail(t, it->line, e,
				AUTOSIZE_EINVAL,
				"key 'discount': missing (expected a fraction such as 0.1 or 10%%)");
		if (!rc)
			rc = policy_fraction(t, it, "discount",
					     PRICE_MAX_DISCOUNT, &r->discount,
					     e);
		if (rc)
			return rc;
		r->min_hours /= 3600;
		prev = s->n_rental ? &s->rental[s->n_rental - 1] : NULL;
		if (r->min_hours <= 0 ||
		    (prev && r->min_hours <= prev->min_hours))
			return autosize_ytree_fail(t, it->line, e,
				AUTOSIZE_EINVAL,
				"key 'min_rental': %.4g h is not longer than the tier before (expected tiers from short to long rentals, each above 0)",
				r->min_hours);
		if (prev && r->discount < prev->discount)
			return autosize_ytree_fail(t, it->line, e,
				AUTOSIZE_EINVAL,
				"key 'discount': %.4g is below the shorter rental's %.4g (expected a longer rental to get at least as much off)",
				r->discount, prev->discount);
		s->n_rental++;
	}
	return AUTOSIZE_OK;
}

/* Two keys that only mean something together. */
static autosize_err price_pair(const autosize_ytree *t,
			       const autosize_ynode *m, const char *a,
			       const char *b, autosize_error *e)
{
	const autosize_ynode *na = autosize_ynode_get(m, a);
	const autosize_ynode *nb = autosize_ynode_get(m, b);

	if (!na == !nb)
		return AUTOSIZE_OK;
	return autosize_ytree_fail(t, na ? na->key_line : nb->key_line, e,
				   AUTOSIZE_EINVAL,
				   "key '%s': given without '%s' (expected "
				   "both or neither)", na ? a : b, na ? b : a);
}

static autosize_err price_read(const autosize_ytree *t,
			       const autosize_ynode *m,
			       autosize_price_schedule *s, autosize_error *e)
{
	autosize_err rc;

	rc = autosize_ytree_check_keys(t, m, "pricing", price_keys, e);
	if (!rc)
		rc = autosize_ytree_double(t, m, "price_per_node_hour",
					   AUTOSIZE_Y_GT_MIN, 0, PRICE_MAX,
					   &s->per_node_hour, NULL, e);
	if (!rc)
		rc = price_pair(t, m, "min_gpus",
				"price_below_min_per_gpu_hour", e);
	if (!rc)
		rc = autosize_ytree_int(t, m, "min_gpus", 0, 2, 100000,
					&s->min_gpus, NULL, e);
	if (!rc)
		rc = autosize_ytree_double(t, m,
					   "price_below_min_per_gpu_hour",
					   AUTOSIZE_Y_GT_MIN, 0, PRICE_MAX,
					   &s->below_min_per_gpu_hour, NULL, e);
	if (!rc)
		rc = price_pair(t, m, "off_peak", "off_peak_discount", e);
	if (!rc)
		rc = price_window(t, m, s, e);
	if (!rc)
		rc = policy_fraction(t, m, "off_peak_discount",
				     PRICE_MAX_DISCOUNT, &s->off_peak_discount,
				     e);
	if (!rc)
		rc = price_tiers(t, m, s, e);
	if (!rc)
		rc = policy_fraction(t, m, "platform_fee", PRICE_MAX_FEE,
				     &s->platform_fee, e);
	return rc;
}

/* Prices that load but contradict what the schedule is for. */
static void price_check(const autosize_ytree *t, const autosize_ynode *m,
			const autosize_partition *part, char *warn,
			size_t warn_len)
{
	const autosize_price_schedule *s = &part->pricing;
	double by_gpu = part->gpus_per_node * part->price_per_gpu_hour;

	if (s->per_node_hour > 0 && s->per_node_hour >= by_gpu)
		snprintf(warn, warn_len,
			 "%.100s:%d: key 'price_per_node_hour': %.4g is not below %d GPUs x %.4g = %.4g: whole nodes cost no less than single GPUs",
			 autosize_ytree_what(t),
			 autosize_ynode_get(m, "price_per_node_hour")->line,
			 s->per_node_hour, part->gpus_per_node,
			 part->price_per_gpu_hour, by_gpu);
	else if (s->min_gpus > 0 &&
		 s->below_min_per_gpu_hour < part->price_per_gpu_hour)
		snprintf(warn, warn_len,
			 "%.100s:%d: key 'price_below_min_per_gpu_hour': %.4g is below price_per_gpu_hour %.4g: small jobs pay less",
			 autosize_ytree_what(t),
			 autosize_ynode_get(m, "price_below_min_per_gpu_hour")
				 ->line,
			 s->below_min_per_gpu_hour, part->price_per_gpu_hour);
}

autosize_err price_policy_parse(const autosize_ytree *t,
				const autosize_ynode *part_map,
				autosize_partition *part, char *warn,
				size_t warn_len, autosize_error *e)
{
	const autosize_ynode *m;
	autosize_err rc;

	warn[0] = '\0';
	memset(&part->pricing, 0, sizeof(part->pricing));
	rc = autosize_ytree_map(t, part_map, "pricing", AUTOSIZE_Y_OPTIONAL,
				&m, e);
	if (rc || !m)
		return rc;
	if (!(part->price_per_gpu_hour > 0))
		return autosize_ytree_fail(t, m->key_line, e, AUTOSIZE_EINVAL,
			"key 'pricing': partition %s has no price_per_gpu_hour (expected the price of one GPU-hour beside the schedule)",
			part->name);
	rc = price_read(t, m, &part->pricing, e);
	part->pricing.node_gpus = part->gpus_per_node;
	if (!rc)
		price_check(t, m, part, warn, warn_len);
	return rc;
}
