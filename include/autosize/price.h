/*
 * autosize: what a rental costs under a partition's price schedule, as
 * GPU rental sites set prices: a price per GPU-hour, a cheaper price for
 * whole nodes, a higher price below a minimum GPU count, off-peak hours
 * and their discount, discounts from the rental length, and a platform
 * fee on top (policy `price_per_gpu_hour` and `pricing:`; man
 * autosize.yaml, doc/admins.md "Prices").
 */
#ifndef AUTOSIZE_PRICE_H
#define AUTOSIZE_PRICE_H

/* Rental-length discount tiers a partition may state. */
#define AUTOSIZE_PRICE_MAX_TIERS 8

typedef struct autosize_rental_discount {
	double min_hours;  /* rentals of at least this many hours ... */
	double discount;   /* ... pay this fraction less (0.1 = 10%) */
} autosize_rental_discount;

/* A partition's schedule on top of its price_per_gpu_hour; all zero:
 * the plain price per GPU-hour. */
typedef struct autosize_price_schedule {
	double per_node_hour;          /* a whole node; 0 = by the GPU */
	int node_gpus;                 /* the GPUs of the whole node it
					* buys: the partition's as read,
					* kept when a QOS cap plans fewer
					* per node (0: the partition's) */
	int min_gpus;                  /* below this many GPUs ... */
	double below_min_per_gpu_hour; /* ... each GPU-hour costs this */
	int off_peak;                  /* 1: the off-peak window is set */
	double off_peak_from_h;        /* local hour of day, 0 <= h < 24 */
	double off_peak_to_h;          /* below from_h: past midnight */
	double off_peak_discount;      /* fraction off in those hours */
	int n_rental;                  /* tiers, min_hours ascending */
	autosize_rental_discount rental[AUTOSIZE_PRICE_MAX_TIERS];
	double platform_fee;           /* fraction added on top */
} autosize_price_schedule;

/* What a rental pays and why (the plan's `price` in JSON). */
typedef struct autosize_cost {
	double total;              /* paid, fee included; 0 = no price */
	double list;               /* GPU-hours x price_per_gpu_hour */
	double gpu_hours;
	double rate_per_gpu_hour;  /* the size's rate before time discounts */
	int whole_nodes;           /* 1: priced by the node */
	int below_min;             /* 1: below min_gpus, its higher price */
	double off_peak_share;     /* of the hours, in the off-peak window */
	double rental_discount;    /* fraction off for the rental length */
	double fee;                /* the platform fee, in the currency */
} autosize_cost;

struct autosize_partition;

/*
 * Cost of renting nodes x gpus_per_node GPUs of partition part for hours.
 * Whole nodes (gpus_per_node = the node's, pricing.node_gpus) pay
 * per_node_hour when the
 * schedule has one; otherwise fewer than min_gpus GPUs pay
 * below_min_per_gpu_hour, else price_per_gpu_hour. Then the off-peak
 * discount on the hours in its window, the rental-length discount of the
 * longest tier reached, and the fee on top of what is left. start_hour:
 * local hour of day the rental starts (0 <= h < 24), or negative when
 * unknown: off-peak hours then count by their share of the day (the
 * expected cost over start times). Fills *out when not NULL; returns the
 * total (0 when the partition has no price or the size is empty).
 */
double autosize_price_cost(const struct autosize_partition *part, int nodes,
			   int gpus_per_node, double hours, double start_hour,
			   autosize_cost *out);

/* Hours of [start_hour, start_hour + hours) inside the daily window
 * [from_h, to_h) (to_h < from_h: it wraps midnight; equal: empty). */
double autosize_price_off_peak_hours(double start_hour, double hours,
				     double from_h, double to_h);

#endif
