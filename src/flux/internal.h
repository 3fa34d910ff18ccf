/* What the HelmRelease step's files share (src/flux only). */
#ifndef CMP_FLUX_INTERNAL_H
#define CMP_FLUX_INTERNAL_H
#include <stdbool.h>

#include "package/resource.h"
#include "util/limits.h"
#include "yaml/tree.h"

/* helm-controller's release name before shortening (GetReleaseName): spec.releaseName, else
 * "<targetNamespace>-<name>" when targetNamespace is set, else the HelmRelease's name. */
const char *flux_release_name(arena *a, const char *release_name, const char *target_namespace, const char *name);
/* helm-controller's ShortenName (internal/release/name.go): a name longer than 53 characters becomes its first 40
 * characters, '-' and the first 12 hex digits of the SHA-256 of the whole name; a shorter one is itself. */
const char *flux_shorten_name(arena *a, const char *name);

/* Is path (helm template's "# Source: " path, len bytes) a file of a crds/ directory of the chart or of a subchart
 * ("<chart>/crds/..." or "<chart>/charts/<sub>/crds/...", as helm names them), not a template? */
bool flux_source_in_crds(const char *path, size_t len);

/* fluxcd/pkg's MergeMaps: a new map holding a's entries, then b's: a map over a map merges (recursively, into a
 * new map), anything else replaces. Values that are not merged are shared, not copied, as Go shares them: a later
 * in-place write through one map shows in the other (flux_values relies on it, as helm-controller does). a or b
 * may be NULL or not a map (nothing to take from it). */
node *flux_merge_maps(arena *a, const node *x, const node *y);
/* For tests only: key comparisons the merges made so far (the unit tests' check that a merge is linear in its keys). */
size_t flux_merge_probes(void);

/* fluxcd/pkg's ReplacePathValue: "path=value" parsed into values with helm's --set rules (strvals.ParseInto); a
 * value wrapped in ' or " is a string with every leading and trailing quote trimmed (ParseIntoString). literal:
 * --set-literal rules (the value whole, as a string). Writes into the maps and lists values holds, in place. 0, or
 * -1 after fail_here() (helm's error, which may quote the value: a caller that must not show it captures it). */
int flux_replace_path_value(arena *a, node *values, const char *path, const char *value, bool literal);

/* One valuesFrom entry, read from the HelmRelease. */
typedef struct flux_values_ref {
    const char *kind, *name, *key, *target_path;
    bool optional, literal;
} flux_values_ref;

/* An object of the package a valuesFrom entry may name: its kind, name, namespace and data (Secret: data decoded
 * from base64, stringData over it), found by the caller. */
typedef struct flux_values_source {
    const char *kind, *name, *namespace;
    node *data; /* map of key: string */
} flux_values_source;

/* fluxcd/pkg's ChartValuesFromReferences: the valuesFrom entries in order over an empty map, then the inline
 * values. Objects are looked up among sources in namespace. 0 with *out (a map), or -1 after fail_here() with
 * *failed_ref the index of the entry at fault (or -1), whose line the caller places the error at (diag_locate).
 * Every optional entry skipped is counted in *skipped. lim: the operator's loader limits for the valuesFrom texts
 * (NULL: the defaults). */
int flux_chart_values(arena *a, strtab *st, const load_limits *lim, const flux_values_source *sources, size_t nsources, const char *namespace,
                      const node *inline_values, const flux_values_ref *refs, size_t nrefs, node **out,
                      long *failed_ref);

/* The HelmRelease's spec.postRenderers over objs, each kustomize entry one run of the real kustomize, objs
 * replaced by its output (objs NULL: the entries are only checked). v2beta: v2beta1 and v2beta2 also take
 * patchesStrategicMerge and patchesJson6902. who names the HelmRelease in messages. 0, or -1 with fn_fail. */
struct fn_ctx;
int flux_post_render(struct fn_ctx *c, const char *who, const node *renderers, bool v2beta, rlist *objs);

/* An OCI chart's manifest (text, len bytes) proven to be the one digest names (its SHA-256), with what the step
 * takes from it: the chart layer's digest and the org.opencontainers.image.source, .revision and .created
 * annotations (NULL when absent; printable text of at most 1024 bytes). NULL, or what is wrong (a phrase about
 * "it", the manifest; arena text, any quoted value escaped). lim: the loader's limits (NULL: the defaults). */
typedef struct flux_oci_meta {
    const char *chart_layer; /* "sha256:<hex>" */
    const char *source, *revision, *created;
} flux_oci_meta;
const char *flux_oci_manifest(arena *a, strtab *st, const load_limits *lim, const char *text, size_t len,
                              const char *digest, flux_oci_meta *m);

/* An OCI chart's manifest and its annotations (oci_annotations.c): *manifest (len bytes) when the chart cache gave
 * it, else read by skopeo from repo/chart@digest (NULL left there when no skopeo can read it: one warning, *warned
 * set, m empty). The manifest must be the one digest names and its chart layer the archive (tgz_hex, its SHA-256).
 * 0, or -1 with fn_fail naming who. */
int flux_oci_annotations(struct fn_ctx *c, const node *at, const char *who, const char *repo, const char *chart,
                         const char *digest, const char *tgz_hex, const char **manifest, size_t *len, bool *warned,
                         flux_oci_meta *m);

/* The operator's chart cache (chart_cache.c), for releases flux-lock pins. flux_cache_get: the chart of repo/chart
 * whose lock digest is digest (an OCI manifest's when oci), verified again as it is read: 1 with *tgz (a copy in
 * scratch, checked as a pulled archive is) and for oci *manifest (*mlen bytes); 0 when the cache does not hold it;
 * -1 with fn_fail (an entry that fails its check, never used). flux_cache_put: the pulled archive (tgz, its SHA-256
 * tgz_hex) and for an OCI chart its manifest (digest), kept; a failure to write is a warning. */
int flux_cache_get(struct fn_ctx *c, const node *at, const char *who, const char *dir, const char *repo,
                   const char *chart, const char *digest, bool oci, const char **tgz, const char **manifest,
                   size_t *mlen);
void flux_cache_put(struct fn_ctx *c, const node *at, const char *who, const char *dir, const char *repo,
                    const char *chart, const char *tgz, const char *tgz_hex, const char *manifest, size_t mlen,
                    const char *digest);

/* A warning naming the step's file and at's line (the step's line when at has none), as fn_warn_key words it. */
void flux_warn(struct fn_ctx *c, const node *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Go's base64.StdEncoding (padding required) into a NUL-terminated arena string; NULL when it is not base64. */
char *flux_base64_decode(arena *a, const char *s, size_t *len);
/* ---- a GitRepository source (git_source.c) ---- */

/* Do the two repository URLs name the same repository, as Argo CD compares them (util/git NormalizeGitURL:
 * credentials removed, lowercased, "user@host:path" and "ssh://user@host/path" alike, ".git" trimmed)? */
bool flux_git_same_url(arena *a, const char *x, const char *y);

/* A GitRepository's spec.ref (NULL members: unset). */
typedef struct flux_git_ref {
    const char *branch, *tag, *semver, *name, *commit;
    /* for a ref that is a tag (flux_git_ref_tag): the commit the tag names in the checkout's git metadata, or NULL
     * and why not */
    const char *tag_commit, *tag_why;
} flux_git_ref;

/* The tag ref asks source-controller to fetch (spec.ref.tag, or spec.ref.name refs/tags/<tag>, by its precedence),
 * or NULL when the ref is a commit, a branch, a semver range or another name. */
const char *flux_git_ref_tag(const flux_git_ref *ref);

/* NULL when ref resolves to the Application's checkout: commit is revision (ARGOCD_APP_REVISION, full SHA); a tag
 * (flux_git_ref_tag) names revision in the checkout's git metadata (tag_commit); name (or refs/heads/ and it) or
 * branch (default master) is target (ARGOCD_APP_SOURCE_TARGET_REVISION, which Argo CD resolved to revision). Else
 * why not (arena text). semver never resolves here. */
const char *flux_git_ref_problem(arena *a, const flux_git_ref *ref, const char *revision, const char *target);

/* NULL when source-controller's artifact of the repository at root holds every file of the chart directory
 * rel_dir (relative to root) that helm reads there; else why not (arena text): spec.ignore set (ignore_set), a
 * .sourceignore with a pattern anywhere in the repository (rules not reproduced here), or a file or directory of
 * the chart that its default ignore rules leave out. */
const char *flux_git_artifact_problem(arena *a, const char *root, const char *rel_dir, bool ignore_set);
/* flux_git_artifact_problem's check of the directory alone (its path and its files by the default rules), once the
 * repository's .sourceignore files have been looked at: for each directory a file:// dependency reaches. */
const char *flux_git_dir_problem(arena *a, const char *root, const char *rel_dir);

/* NULL when no component of clean (a path from the repository's root at root, as flux_git_path cleans it) is a
 * name source-controller's default ignore rules leave out of its artifact (.git, .github, .sops.yaml, *.png, ...);
 * else why (arena text, after the field's name). For a file helm or this step reads outside the chart directory
 * that flux_git_artifact_problem walked: valuesFiles. */
const char *flux_git_left_out(arena *a, const char *root, const char *clean);

/* rel, a path the HelmRelease gives in the repository at root (a real path), as source-controller reads it from
 * its artifact: NULL with *real (resolved, inside root) and *clean (cleaned, relative), or what is wrong, after the
 * field's name ("does not exist in the repository", with *missing set; "leads outside the repository" when it is
 * empty, absolute, leaves the repository or passes a symlink, as the artifact holds none). */
const char *flux_git_path(arena *a, const char *root, const char *rel, const char **real, const char **clean,
                          bool *missing);

/* The run's repository root (functions/tools/confine.h repo_root): where local charts are confined. */
struct fn_ctx;
const char *flux_repo_root(struct fn_ctx *c);

/* notation.c: `notation verify -- ref` with the operator's notation and the trust policy mounted for key_name (the
 * verify.secretRef name); who names the HelmRelease, where prefixes the field, at is it. ref NULL: only what the
 * sidecar must have is checked (before the pull). 0, or -1 with fn_fail: without notation or the trust policy,
 * never unverified. */
int flux_notation_verify(struct fn_ctx *c, const char *who, const char *where, const node *at, const char *key_name,
                         const char *ref);

/* semver_filter.c: an OCIRepository's ref.semverFilter. NULL when the pattern is within what Go's RE2 and pcre2 read
 * alike, else why not. */
const char *flux_re2_subset_problem(const char *pattern);
/* What is wrong with a semverFilter pattern (outside that subset, or not a regular expression), after the field's
 * name; NULL when it can be matched. */
const char *flux_semver_filter_problem(arena *a, const char *pattern);
/* Does the pattern match (unanchored, as Go's MatchString) in tag, within lim's regex steps (NULL: the defaults)?
 * 1 or 0; -1 after fail_here() (the pattern's problem, or a step limit hit). */
int flux_semver_filter_match(const limits *lim, arena *a, const char *pattern, const char *tag);

/* semver_pick.c: source-controller's getTagBySemver over a tag list. Is tag a version to fluxcd/pkg's ParseVersion
 * (v?MAJOR.MINOR.PATCH[-prerelease][+metadata], strict)? */
bool flux_semver_tag_version(const char *tag);
/* NULL when constraint is a Masterminds/semver v3 constraint read here as Masterminds reads it; else why not. */
const char *flux_semver_constraint_problem(const char *constraint);
/* Does version (a tag, read by ParseVersion) satisfy constraint (Constraints.Check)? 1 or 0; -1 when either is not
 * read. */
int flux_semver_check(const char *constraint, const char *version);
/* The index of the tag source-controller picks among tags[0..n) (the ones semverFilter kept, in the registry's
 * order): the highest version that satisfies constraint, the first listed among equal ones (1.0.0, v1.0.0); -1 when
 * none does; -2 when constraint is not one. */
long flux_semver_pick(const char *constraint, const char *const *tags, size_t n);

/* oci_tags.c: Is t (n bytes) an OCI tag ([A-Za-z0-9_][A-Za-z0-9._-]{0,127})? */
bool flux_oci_tag(const char *t, size_t n);
/* An OCIRepository's spec.ref.semver (with spec.ref.semverFilter, NULL or "" for none; filter_at its field) resolved
 * from the registry's tag list of repo/chart, read with the operator's skopeo (CMP_SKOPEO_BIN, else skopeo on PATH),
 * as source-controller resolves it: 1 with *tag; 0 when there is no skopeo (or the registry host is one skopeo would
 * read as a Docker Hub path): helm picks, as before; -1 with fn_fail (who names the OCIRepository): no tag
 * satisfies, the list is over its cap or not a list, a tag in it is not an OCI tag, skopeo failed. */
int flux_oci_semver_tag(struct fn_ctx *c, const node *at, const char *who, const char *repo, const char *chart,
                        const char *semver, const char *filter, const node *filter_at, const char **tag);
#endif
