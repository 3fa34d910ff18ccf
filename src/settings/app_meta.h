/* What Argo CD tells a plugin about the Application (its ARGOCD_APP_* variables, or git's view of a local
 * checkout), read and checked here; argocd/metadata.h stamps it on the objects. */
#ifndef CMP_SETTINGS_APP_META_H
#define CMP_SETTINGS_APP_META_H
typedef struct app_meta {
    const char *name, *namespace, *project, *revision, *repo, *target_revision, *path;
    const char *package_revision; /* the last commit that changed the package directory (from .git); NULL: unknown */
} app_meta;

/* A metadata value must be valid UTF-8 with no control character (C0, DEL, C1), line or paragraph separator:
 * fail()s naming file (may be NULL), what (the variable, or where git had it) and the byte offset, never the value. */
int meta_value_check(const char *file, const char *what, const char *value);
/* The annotation-domain parameter, the key prefix of the stamps, must be a DNS subdomain (settings/value_rules.h). */
int check_annotation_domain(const char *domain);
#endif
