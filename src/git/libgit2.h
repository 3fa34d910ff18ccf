/* libgit2, opened with dlopen on the git paths only (dry-run metadata, the package-revision stamp, `pkg get`).
 * Linked at build time, libgit2 and the twenty libraries behind it (krb5, mbedtls, ssh2, ...) cost every start
 * millions of instructions in the dynamic linker, and a render under Argo CD never touches git. Private to src/git:
 * after this header, a call such as git_commit_lookup(...) goes through the table, so the code reads as plain
 * libgit2 and the build proves the list complete (a name left out is an undefined reference: we do not link
 * libgit2). */
#ifndef CMP_GIT_LIBGIT2_H
#define CMP_GIT_LIBGIT2_H
#include <git2.h>

/* Every libgit2 function src/git calls. */
#define GITSRC_LIBGIT2_FUNCTIONS(X) \
    X(git_blob_free) \
    X(git_blob_lookup) \
    X(git_blob_rawcontent) \
    X(git_blob_rawsize) \
    X(git_buf_dispose) \
    X(git_commit_free) \
    X(git_commit_id) \
    X(git_commit_lookup) \
    X(git_commit_parent) \
    X(git_commit_parentcount) \
    X(git_commit_tree) \
    X(git_config_free) \
    X(git_config_get_string) \
    X(git_credential_ssh_key_from_agent) \
    X(git_credential_username_new) \
    X(git_error_last) \
    X(git_fetch_options_init) \
    X(git_libgit2_init) \
    X(git_libgit2_opts) \
    X(git_libgit2_shutdown) \
    X(git_object_free) \
    X(git_object_id) \
    X(git_object_lookup) \
    X(git_object_lookup_prefix) \
    X(git_object_peel) \
    X(git_object_type) \
    X(git_odb_hash) \
    X(git_oid_cpy) \
    X(git_oid_equal) \
    X(git_oid_fromstr) \
    X(git_oid_fromstrn) \
    X(git_oid_fromstrp) \
    X(git_oid_tostr) \
    X(git_reference_free) \
    X(git_reference_lookup) \
    X(git_reference_peel) \
    X(git_reference_shorthand) \
    X(git_reference_symbolic_create) \
    X(git_reference_symbolic_target) \
    X(git_reference_target) \
    X(git_reference_type) \
    X(git_remote_create_options_init) \
    X(git_remote_create_with_opts) \
    X(git_remote_default_branch) \
    X(git_remote_fetch) \
    X(git_remote_free) \
    X(git_repository_config_snapshot) \
    X(git_repository_free) \
    X(git_repository_head) \
    X(git_repository_head_detached) \
    X(git_repository_init) \
    X(git_repository_is_bare) \
    X(git_repository_is_shallow) \
    X(git_repository_open_bare) \
    X(git_repository_open_ext) \
    X(git_repository_workdir) \
    X(git_tag_foreach) \
    X(git_tree_entry_byindex) \
    X(git_tree_entry_byname) \
    X(git_tree_entry_bypath) \
    X(git_tree_entry_filemode) \
    X(git_tree_entry_free) \
    X(git_tree_entry_id) \
    X(git_tree_entry_name) \
    X(git_tree_entry_type) \
    X(git_tree_entrycount) \
    X(git_tree_free) \
    X(git_tree_id) \
    X(git_tree_lookup)

typedef struct gitsrc_libgit2 {
#define GITSRC_SLOT(f) __typeof__(f) *f;
    GITSRC_LIBGIT2_FUNCTIONS(GITSRC_SLOT)
#undef GITSRC_SLOT
} gitsrc_libgit2;

/* Filled once by gitsrc_open, then only read: the process-wide view of one loaded library, as the dynamic
 * linker's own tables would be. */
extern gitsrc_libgit2 gitsrc_lib;

/* Loads libgit2 (the version the build compiled against, libgit2.so.<LIBGIT2_SOVERSION>) on first use and takes a
 * reference on its global state (git_libgit2_init). A library that is missing or lacks a function: fail() with
 * file, "<what>: " (when what is not NULL) and the loader's reason, and -1; nothing to close then. */
int gitsrc_open(const char *file, const char *what);
/* Drops the reference taken by a successful gitsrc_open (git_libgit2_shutdown); the library stays mapped. */
void gitsrc_close(void);

#ifndef GITSRC_LIBGIT2_LOADER
#define git_blob_free (gitsrc_lib.git_blob_free)
#define git_blob_lookup (gitsrc_lib.git_blob_lookup)
#define git_blob_rawcontent (gitsrc_lib.git_blob_rawcontent)
#define git_blob_rawsize (gitsrc_lib.git_blob_rawsize)
#define git_buf_dispose (gitsrc_lib.git_buf_dispose)
#define git_commit_free (gitsrc_lib.git_commit_free)
#define git_commit_id (gitsrc_lib.git_commit_id)
#define git_commit_lookup (gitsrc_lib.git_commit_lookup)
#define git_commit_parent (gitsrc_lib.git_commit_parent)
#define git_commit_parentcount (gitsrc_lib.git_commit_parentcount)
#define git_commit_tree (gitsrc_lib.git_commit_tree)
#define git_config_free (gitsrc_lib.git_config_free)
#define git_config_get_string (gitsrc_lib.git_config_get_string)
#define git_credential_ssh_key_from_agent (gitsrc_lib.git_credential_ssh_key_from_agent)
#define git_credential_username_new (gitsrc_lib.git_credential_username_new)
#define git_error_last (gitsrc_lib.git_error_last)
#define git_fetch_options_init (gitsrc_lib.git_fetch_options_init)
#define git_libgit2_init (gitsrc_lib.git_libgit2_init)
#define git_libgit2_opts (gitsrc_lib.git_libgit2_opts)
#define git_libgit2_shutdown (gitsrc_lib.git_libgit2_shutdown)
#define git_object_free (gitsrc_lib.git_object_free)
#define git_object_id (gitsrc_lib.git_object_id)
#define git_object_lookup (gitsrc_lib.git_object_lookup)
#define git_object_lookup_prefix (gitsrc_lib.git_object_lookup_prefix)
#define git_object_peel (gitsrc_lib.git_object_peel)
#define git_object_type (gitsrc_lib.git_object_type)
#define git_odb_hash (gitsrc_lib.git_odb_hash)
#define git_oid_cpy (gitsrc_lib.git_oid_cpy)
#define git_oid_equal (gitsrc_lib.git_oid_equal)
#define git_oid_fromstr (gitsrc_lib.git_oid_fromstr)
#define git_oid_fromstrn (gitsrc_lib.git_oid_fromstrn)
#define git_oid_fromstrp (gitsrc_lib.git_oid_fromstrp)
#define git_oid_tostr (gitsrc_lib.git_oid_tostr)
#define git_reference_free (gitsrc_lib.git_reference_free)
#define git_reference_lookup (gitsrc_lib.git_reference_lookup)
#define git_reference_peel (gitsrc_lib.git_reference_peel)
#define git_reference_shorthand (gitsrc_lib.git_reference_shorthand)
#define git_reference_symbolic_create (gitsrc_lib.git_reference_symbolic_create)
#define git_reference_symbolic_target (gitsrc_lib.git_reference_symbolic_target)
#define git_reference_target (gitsrc_lib.git_reference_target)
#define git_reference_type (gitsrc_lib.git_reference_type)
#define git_remote_create_options_init (gitsrc_lib.git_remote_create_options_init)
#define git_remote_create_with_opts (gitsrc_lib.git_remote_create_with_opts)
#define git_remote_default_branch (gitsrc_lib.git_remote_default_branch)
#define git_remote_fetch (gitsrc_lib.git_remote_fetch)
#define git_remote_free (gitsrc_lib.git_remote_free)
#define git_repository_config_snapshot (gitsrc_lib.git_repository_config_snapshot)
#define git_repository_free (gitsrc_lib.git_repository_free)
#define git_repository_head (gitsrc_lib.git_repository_head)
#define git_repository_head_detached (gitsrc_lib.git_repository_head_detached)
#define git_repository_init (gitsrc_lib.git_repository_init)
#define git_repository_is_bare (gitsrc_lib.git_repository_is_bare)
#define git_repository_is_shallow (gitsrc_lib.git_repository_is_shallow)
#define git_repository_open_bare (gitsrc_lib.git_repository_open_bare)
#define git_repository_open_ext (gitsrc_lib.git_repository_open_ext)
#define git_repository_workdir (gitsrc_lib.git_repository_workdir)
#define git_tag_foreach (gitsrc_lib.git_tag_foreach)
#define git_tree_entry_byindex (gitsrc_lib.git_tree_entry_byindex)
#define git_tree_entry_byname (gitsrc_lib.git_tree_entry_byname)
#define git_tree_entry_bypath (gitsrc_lib.git_tree_entry_bypath)
#define git_tree_entry_filemode (gitsrc_lib.git_tree_entry_filemode)
#define git_tree_entry_free (gitsrc_lib.git_tree_entry_free)
#define git_tree_entry_id (gitsrc_lib.git_tree_entry_id)
#define git_tree_entry_name (gitsrc_lib.git_tree_entry_name)
#define git_tree_entry_type (gitsrc_lib.git_tree_entry_type)
#define git_tree_entrycount (gitsrc_lib.git_tree_entrycount)
#define git_tree_free (gitsrc_lib.git_tree_free)
#define git_tree_id (gitsrc_lib.git_tree_id)
#define git_tree_lookup (gitsrc_lib.git_tree_lookup)
#endif
#endif
