/*
 * autosize: what --model names (model.h autosize_model_resolve): a preset,
 * a folder with a config.json, the file itself, or a Hugging Face id whose
 * config.json is in the local hub cache; else one line with the nearest
 * presets. The network is never used: a model not on this host is the
 * user's to download (`huggingface-cli download ORG/NAME config.json`).
 *
 * Files are read only where the caller says the user's own files may be
 * read (sbatch, salloc, srun and the CLI, as the user). slurmctld and
 * slurmstepd resolve presets only: the submit host sends the model it
 * read in AUTOSIZE_MODEL (jobenv.h), so no path, folder or cache that a
 * user names is ever opened by a daemon.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "autosize/model.h"
#include "autosize/plan.h"
#include "readfile.h"
#include "ytree.h"

/* The Hub's limit on an organisation or repository name. */
#define SPEC_HF_PART_MAX 96
/* refs/main holds a commit hash (40 hex digits) or a tag. */
#define SPEC_REF_MAX 256
#define SPEC_CACHES 5

/* spec quoted in messages: shortened, printable. */
static const char *spec_quote(const char *spec, char *buf, size_t len)
{
	return autosize_ytree_excerpt(spec, strlen(spec), buf, len);
}

/* One side of an id: 1..96 of [A-Za-z0-9._-], not starting with '.' or
 * '-', without ".." or "--" (the Hub refuses those). */
static int spec_hf_part(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > SPEC_HF_PART_MAX || s[0] == '.' || s[0] == '-')
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			return 0;
		if (i && (c == '.' || c == '-') && s[i - 1] == c)
			return 0;
	}
	return 1;
}

int autosize_model_is_hf_id(const char *spec)
{
	const char *slash = spec ? strchr(spec, '/') : NULL;

	return slash && !strchr(slash + 1, '/') &&
	       spec_hf_part(spec, (size_t)(slash - spec)) &&
	       spec_hf_part(slash + 1, strlen(slash + 1));
}

/* The hub caches to look in, huggingface_hub's order: HF_HUB_CACHE,
 * HUGGINGFACE_HUB_CACHE (its old name), HF_HOME/hub,
 * XDG_CACHE_HOME/huggingface/hub, ~/.cache/huggingface/hub; repeats
 * left out. Returns how many. */
static int spec_caches(char dirs[SPEC_CACHES][AUTOSIZE_PATH_MAX])
{
	static const struct {
		const char *var, *tail;
	} from[SPEC_CACHES] = {
		{"HF_HUB_CACHE", ""},
		{"HUGGINGFACE_HUB_CACHE", ""},
		{"HF_HOME", "/hub"},
		{"XDG_CACHE_HOME", "/huggingface/hub"},
		{"HOME", "/.cache/huggingface/hub"},
	};
	int i, j, n = 0, w;

	for (i = 0; i < SPEC_CACHES; i++) {
		const char *v = getenv(from[i].var);

		if (!v || !v[0])
			continue;
		w = snprintf(dirs[n], AUTOSIZE_PATH_MAX, "%s%s", v,
			     from[i].tail);
		if (w < 0 || w >= AUTOSIZE_PATH_MAX)
			continue;
		for (j = 0; j < n && strcmp(dirs[j], dirs[n]) != 0; j++)
			;
		if (j == n)
			n++;
	}
	return n;
}

/* The revision refs/main names ([A-Za-z0-9._-]+, no "..") into rev;
 * 0, or -1 when there is no such file or it holds something else. */
static int spec_ref_main(const char *repo, char *rev, size_t len)
{
	char path[AUTOSIZE_PATH_MAX], *text = NULL;
	size_t n = 0, i;
	int rv = -1;

	if (snprintf(path, sizeof(path), "%s/refs/main", repo) >=
	    (int)sizeof(path) ||
	    autosize_read_regular_file(path, SPEC_REF_MAX, "refs/main", &text,
				       &n, NULL) != AUTOSIZE_OK)
		return -1;
	while (n && (text[n - 1] == '\n' || text[n - 1] == '\r' ||
		     text[n - 1] == ' '))
		n--;
	if (n == 0 || n >= len || !spec_hf_part(text, n))
		goto out;
	for (i = 0; i < n; i++)
		rev[i] = text[i];
	rev[n] = '\0';
	rv = 0;
out:
	free(text);
	return rv;
}

/* Without refs/main: the snapshot whose config.json changed last. */
static int spec_newest_snapshot(const char *repo, char *rev, size_t len)
{
	char dir[AUTOSIZE_PATH_MAX], cfg[AUTOSIZE_PATH_MAX];
	struct dirent *d;
	struct stat st;
	time_t best = 0;
	DIR *dp;
	int rv = -1;

	if (snprintf(dir, sizeof(dir), "%s/snapshots", repo) >=
	    (int)sizeof(dir) || !(dp = opendir(dir)))
		return -1;
	while ((d = readdir(dp))) {
		size_t n = strlen(d->d_name);

		if (!spec_hf_part(d->d_name, n) || n >= len ||
		    snprintf(cfg, sizeof(cfg), "%s/%s/config.json", dir,
			     d->d_name) >= (int)sizeof(cfg) ||
		    stat(cfg, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (rv == 0 && st.st_mtime <= best)
			continue;
		best = st.st_mtime;
		memcpy(rev, d->d_name, n + 1);
		rv = 0;
	}
	closedir(dp);
	return rv;
}

/* The model's name: the repository's (an id holds only letters,
 * digits and ._-, spec_hf_part). */
static void spec_name(autosize_model *m, const char *name)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < sizeof(m->name); i++)
		m->name[i] = name[i];
	m->name[i] = '\0';
}

/*
 * The id's config.json from the hub cache into m. AUTOSIZE_ENOTFOUND
 * with *e naming where it looked when no cache has the model.
 */
static autosize_err spec_from_hub(const char *spec, autosize_model *m,
				  autosize_error *e)
{
	char dirs[SPEC_CACHES][AUTOSIZE_PATH_MAX];
	char repo[AUTOSIZE_PATH_MAX], rev[SPEC_REF_MAX];
	char cfg[AUTOSIZE_PATH_MAX], near[200], q[120];
	const char *slash = strchr(spec, '/');
	struct stat st;
	autosize_err rc;
	int n = spec_caches(dirs), i, near_n;

	for (i = 0; i < n; i++) {
		if (snprintf(repo, sizeof(repo), "%s/models--%.*s--%s",
			     dirs[i], (int)(slash - spec), spec, slash + 1) >=
		    (int)sizeof(repo) ||
		    stat(repo, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		if (spec_ref_main(repo, rev, sizeof(rev)) != 0 &&
		    spec_newest_snapshot(repo, rev, sizeof(rev)) != 0)
			return autosize_fail(e, AUTOSIZE_ENOTFOUND,
					     "--model %s: %s has no snapshot "
					     "with a config.json (get it with "
					     "`huggingface-cli download %s "
					     "config.json`)",
					     spec_quote(spec, q, sizeof(q)),
					     repo, spec);
		if (snprintf(cfg, sizeof(cfg), "%s/snapshots/%s/config.json",
			     repo, rev) >= (int)sizeof(cfg))
			continue;
		if (stat(cfg, &st) != 0)
			return autosize_fail(e, AUTOSIZE_ENOTFOUND,
					     "--model %s: the cached snapshot "
					     "%s has no config.json (get it "
					     "with `huggingface-cli download %s "
					     "config.json`)",
					     spec_quote(spec, q, sizeof(q)),
					     rev, spec);
		rc = autosize_model_from_config_json(cfg, m, e);
		if (rc == AUTOSIZE_OK)
			spec_name(m, slash + 1);
		return rc;
	}
	near_n = autosize_model_preset_nearest(spec, near, sizeof(near));
	return autosize_fail(e, AUTOSIZE_ENOTFOUND,
			     "--model %s: not a preset, a folder or a file, "
			     "and not in the Hugging Face cache %s (get its "
			     "config.json with `huggingface-cli download %s "
			     "config.json`; nothing is fetched from the "
			     "network here)%s%s%s",
			     spec_quote(spec, q, sizeof(q)),
			     n ? dirs[0] : "(no HF_HUB_CACHE, HF_HOME or "
			     "HOME set)", spec,
			     near_n ? "; did you mean " : "", near,
			     near_n ? "?" : "");
}

/* A folder: its config.json. */
static autosize_err spec_from_folder(const char *spec, autosize_model *m,
				     autosize_error *e)
{
	char cfg[AUTOSIZE_PATH_MAX], q[120];
	size_t n = strlen(spec);
	struct stat st;

	while (n > 1 && spec[n - 1] == '/')
		n--;
	if (snprintf(cfg, sizeof(cfg), "%.*s/config.json", (int)n, spec) >=
	    (int)sizeof(cfg))
		return autosize_fail(e, AUTOSIZE_EINVAL, "--model %s: path "
				     "too long", spec_quote(spec, q,
							    sizeof(q)));
	if (stat(cfg, &st) != 0 && errno == ENOENT)
		return autosize_fail(e, AUTOSIZE_ENOTFOUND,
				     "--model %s: the folder has no "
				     "config.json (expected a Hugging Face "
				     "model's folder, or the path of its "
				     "config.json)",
				     spec_quote(spec, q, sizeof(q)));
	return autosize_model_from_config_json(cfg, m, e);
}

autosize_err autosize_model_resolve(const char *spec, int local,
				    autosize_model *m, autosize_error *e)
{
	char q[120], near[200];
	struct stat st;

	if (!spec || !spec[0] || !m)
		return autosize_fail(e, AUTOSIZE_EINVAL, "--model: empty "
				     "value (expected a preset, a folder, a "
				     "config.json or a Hugging Face id)");
	if (autosize_model_is_preset(spec) || (!local &&
	    !strchr(spec, '/') && !strstr(spec, ".json")))
		return autosize_model_preset(spec, m, e);
	if (!local) {
		if (autosize_model_preset_nearest(spec, near,
						  sizeof(near)) > 0)
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     "--model %s: not a preset (did "
					     "you mean %s?), and a folder, file "
					     "or Hugging Face id is read on the "
					     "submit host only (is the autosize "
					     "SPANK plugin loaded there?)",
					     spec_quote(spec, q, sizeof(q)),
					     near);
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--model %s: a folder, file or Hugging "
				     "Face id is read on the submit host only "
				     "(is the autosize SPANK plugin loaded "
				     "there?)", spec_quote(spec, q, sizeof(q)));
	}
	if (stat(spec, &st) == 0)
		return S_ISDIR(st.st_mode) ? spec_from_folder(spec, m, e)
					   : autosize_model_from_config_json(
						spec, m, e);
	if (errno == ENOENT && autosize_model_is_hf_id(spec))
		return spec_from_hub(spec, m, e);
	if (strchr(spec, '/') || strstr(spec, ".json"))
		return autosize_model_from_config_json(spec, m, e);
	return autosize_model_preset(spec, m, e);
}
