/* The labels, annotations, annotation-domain and images parameters refuse what Kubernetes or a registry would
 * refuse (settings/value_rules.h): the rules one by one, then settings_load naming the parameter and the key. */
#include <stdlib.h>

#include "argocd/metadata.h"
#include "argocd/overrides.h"
#include "settings/settings.h"
#include "settings/value_rules.h"
#include "check.h"
#include "util/diag.h"

#define D64 "24a0c4b4a4c0eb97a1aabb8e29f18e917d05abfe1b7a7c07857230879ce7d3d3"

static const char *repeat(arena *a, char c, size_t n)
{
    char *s = arena_alloc(a, n + 1);
    memset(s, c, n);
    s[n] = 0;
    return s;
}

TEST(dns_subdomain_rule_is_kubernetes_is_dns1123_subdomain)
{
    arena *a = arena_new();
    CHECK(!dns_subdomain_rule("cmp-generate"));
    CHECK(!dns_subdomain_rule("apps.example.com"));
    CHECK(!dns_subdomain_rule("0.a-b.c9"));
    /* Kubernetes checks the total length only, not 63 per part */
    CHECK(!dns_subdomain_rule(arena_printf(a, "%s.com", repeat(a, 'a', 100))));
    CHECK(!dns_subdomain_rule(repeat(a, 'a', 253)));
    CHECK(dns_subdomain_rule(repeat(a, 'a', 254)));
    CHECK(dns_subdomain_rule(""));
    CHECK(dns_subdomain_rule("Example.com"));
    CHECK(dns_subdomain_rule("a_b"));
    CHECK(dns_subdomain_rule("-a.com"));
    CHECK(dns_subdomain_rule("a-.com"));
    CHECK(dns_subdomain_rule("a.-b"));
    CHECK(dns_subdomain_rule("a..b"));
    CHECK(dns_subdomain_rule(".a"));
    CHECK(dns_subdomain_rule("a."));
    CHECK(dns_subdomain_rule("a/b"));
    arena_free(a);
}

TEST(qualified_name_rule_is_kubernetes_is_qualified_name)
{
    arena *a = arena_new();
    CHECK(!qualified_name_rule("team", false));
    CHECK(!qualified_name_rule("app.kubernetes.io/part-of", false));
    CHECK(!qualified_name_rule("MyName", false));
    CHECK(!qualified_name_rule("a_b.c-D9", false));
    CHECK(!qualified_name_rule("x", false));
    CHECK(!qualified_name_rule(repeat(a, 'n', 63), false));
    CHECK(!qualified_name_rule(arena_printf(a, "%s/%s", repeat(a, 'p', 253), repeat(a, 'n', 63)), false));
    CHECK(strstr(qualified_name_rule("a/b/c", false), "more than one '/'"));
    CHECK(strstr(qualified_name_rule("", false), "must not be empty"));
    CHECK(strstr(qualified_name_rule("/x", false), "prefix before '/' is empty"));
    CHECK(strstr(qualified_name_rule("example.com/", false), "name after '/' is empty"));
    CHECK(strstr(qualified_name_rule(repeat(a, 'n', 64), false), "longer than 63"));
    CHECK(strstr(qualified_name_rule(arena_printf(a, "e.com/%s", repeat(a, 'n', 64)), false), "longer than 63"));
    CHECK(strstr(qualified_name_rule(arena_printf(a, "%s/n", repeat(a, 'p', 254)), false), "longer than 253"));
    CHECK(strstr(qualified_name_rule("-team", false), "starting and ending"));
    CHECK(strstr(qualified_name_rule("team_", false), "starting and ending"));
    CHECK(strstr(qualified_name_rule("te am", false), "starting and ending"));
    CHECK(strstr(qualified_name_rule("a:b", false), "starting and ending"));
    CHECK(strstr(qualified_name_rule("ex_ample.com/x", false), "DNS subdomain"));
    /* Kubernetes lower-cases an annotation key before the check, a label key it does not */
    CHECK(strstr(qualified_name_rule("Example.com/x", false), "DNS subdomain"));
    CHECK(!qualified_name_rule("Example.COM/x", true));
    CHECK(qualified_name_rule("Ex_ample.com/x", true));
    CHECK(qualified_name_rule("a/b/c", true));
    arena_free(a);
}

TEST(label_value_rule_is_kubernetes_is_valid_label_value)
{
    arena *a = arena_new();
    CHECK(!label_value_rule(""));
    CHECK(!label_value_rule("web"));
    CHECK(!label_value_rule("v1.2_3-Beta"));
    CHECK(!label_value_rule("0"));
    CHECK(!label_value_rule(repeat(a, 'v', 63)));
    CHECK(strstr(label_value_rule(repeat(a, 'v', 64)), "at most 63"));
    CHECK(label_value_rule("-web"));
    CHECK(label_value_rule("web."));
    CHECK(label_value_rule("a/b"));
    CHECK(label_value_rule("a b"));
    CHECK(label_value_rule("caf\xc3\xa9"));
    arena_free(a);
}

/* NULL when spec splits and is valid, with the parts written as "name|newName|newTag|digest" into *parts */
static const char *split(arena *a, const char *spec, const char **parts)
{
    image_override o;
    const char *why = image_override_split(a, spec, &o);
    *parts = why ? "" : arena_printf(a, "%s|%s|%s|%s", o.name, o.new_name, o.new_tag, o.digest);
    return why;
}

TEST(image_overrides_split_as_kustomize_edit_set_image)
{
    arena *a = arena_new();
    const char *p;
    CHECK(!split(a, "nginx:1.25", &p));
    CHECK_STR(p, "nginx||1.25|");
    CHECK(!split(a, "postgres=eu.gcr.io/my-project/postgres:latest", &p));
    CHECK_STR(p, "postgres|eu.gcr.io/my-project/postgres|latest|");
    CHECK(!split(a, "mysql=mariadb", &p));
    CHECK_STR(p, "mysql|mariadb||");
    CHECK(!split(a, "alpine@sha256:" D64, &p));
    CHECK_STR(p, "alpine|||sha256:" D64);
    CHECK(!split(a, "my-app=my-registry/my-app@sha256:" D64, &p));
    CHECK_STR(p, "my-app|my-registry/my-app||sha256:" D64);
    /* a registry port is part of the name: the tag is after the last ':' that follows the last '/' */
    CHECK(!split(a, "ngnix=localhost:5000/my-project/ngnix", &p));
    CHECK_STR(p, "ngnix|localhost:5000/my-project/ngnix||");
    CHECK(!split(a, "image1=foo.bar.foo:8800/foo/image1:foo-bar", &p));
    CHECK_STR(p, "image1|foo.bar.foo:8800/foo/image1|foo-bar|");
    CHECK(!split(a, "localhost:5000/web:2", &p));
    CHECK_STR(p, "localhost:5000/web||2|");
    /* kustomize 5: a tag and a digest */
    CHECK(!split(a, "my-image1:my-tag@sha256:" D64, &p));
    CHECK_STR(p, "my-image1||my-tag|sha256:" D64);
    CHECK(!split(a, "image1=my-image1:my-tag@sha256:" D64, &p));
    CHECK_STR(p, "image1|my-image1|my-tag|sha256:" D64);
    /* kustomize's "*": keep what is there, which for us is the image's own */
    CHECK(!split(a, "image1=*:v1", &p));
    CHECK_STR(p, "image1||v1|");
    CHECK(!split(a, "image1=my-image1:*", &p));
    CHECK_STR(p, "image1|my-image1||");
    CHECK(!split(a, "image2=my-image2@*", &p));
    CHECK_STR(p, "image2|my-image2||");
    /* the name to match may carry a tag: only that exact image changes */
    CHECK(!split(a, "nginx:1.24=nginx:1.25", &p));
    CHECK_STR(p, "nginx:1.24|nginx|1.25|");
    /* the grammar's corners: separators, an upper-case registry, an IPv6 registry, a 128-character tag */
    CHECK(!split(a, "a=my-reg.io/a__b/c---d/e.f_g:1", &p));
    CHECK(!split(a, "a=Registry.Example.com/team/app:1", &p));
    CHECK(!split(a, "a=[::1]:5000/app:1", &p));
    CHECK(!split(a, arena_printf(a, "a:%s", repeat(a, 't', 128)), &p));
    CHECK(!split(a, "a:_tag", &p));
    CHECK(!split(a, "a@sha512+b64.x_y-z:" D64, &p));
    arena_free(a);
}

TEST(image_overrides_refuse_what_a_registry_refuses)
{
    arena *a = arena_new();
    const char *p;
    /* the two from the task: a second ':' is not a tag, '-x' is not a name */
    CHECK(strstr(split(a, "nginxdemos/hello=foo:bar:baz", &p), "the new name \"foo:bar\" is not valid"));
    CHECK(strstr(split(a, "nginxdemos/hello=-x", &p), "the new name \"-x\" is not valid"));
    CHECK(strstr(split(a, "nginx", &p), "is not name=newName:newTag"));
    CHECK(strstr(split(a, "nginx=*", &p), "changes nothing"));
    CHECK(strstr(split(a, "nginx:*", &p), "changes nothing"));
    CHECK(strstr(split(a, "nginx=", &p), "new name after '=' is empty"));
    CHECK(strstr(split(a, "nginx=:v1", &p), "new name after '=' is empty"));
    CHECK(strstr(split(a, "nginx:", &p), "tag after ':' is empty"));
    CHECK(strstr(split(a, "nginx=web@", &p), "digest after '@' is empty"));
    CHECK(strstr(split(a, "Nginx:1", &p), "the image name \"Nginx\""));
    CHECK(strstr(split(a, "=web:1", &p), "the image name \"\""));
    CHECK(strstr(split(a, "a=b=c", &p), "the new name \"b=c\""));
    CHECK(strstr(split(a, "nginx=web/:1", &p), "the new name"));
    CHECK(strstr(split(a, "nginx=web//x", &p), "the new name"));
    CHECK(strstr(split(a, "nginx=we..b", &p), "the new name"));
    CHECK(strstr(split(a, "nginx=web_", &p), "the new name"));
    CHECK(strstr(split(a, "nginx=web___x", &p), "the new name"));
    CHECK(strstr(split(a, "nginx=reg:port/x", &p), "the new name"));
    CHECK(strstr(split(a, "nginx=-reg.io/x", &p), "the new name"));
    CHECK(strstr(split(a, "nginx=[::g]/x", &p), "the new name"));
    CHECK(strstr(split(a, "nginx=web x", &p), "the new name"));
    CHECK(strstr(split(a, arena_printf(a, "nginx=%s", repeat(a, 'n', 256)), &p), "the new name"));
    CHECK(!split(a, arena_printf(a, "nginx=%s", repeat(a, 'n', 255)), &p));
    CHECK(strstr(split(a, "nginx:.1", &p), "the tag \".1\""));
    CHECK(strstr(split(a, "nginx:-1", &p), "the tag \"-1\""));
    CHECK(strstr(split(a, "nginx:{{.Tag}}", &p), "the tag"));
    CHECK(strstr(split(a, arena_printf(a, "nginx:%s", repeat(a, 't', 129)), &p), "the tag"));
    CHECK(strstr(split(a, "nginx@sha256:abc", &p), "the digest \"sha256:abc\""));
    CHECK(strstr(split(a, "nginx@" D64, &p), "the digest"));
    CHECK(strstr(split(a, "nginx@sha256:" D64 "g", &p), "the digest"));
    CHECK(strstr(split(a, "nginx@1sha:" D64, &p), "the digest"));
    CHECK(strstr(split(a, "nginx@sha256:" D64 "@sha256:" D64, &p), "the digest"));
    CHECK(strstr(split(a, "nginx:1.0@x=web:2", &p), "the digest of the image name"));
    CHECK(strstr(split(a, "nginx:.0=web:2", &p), "the tag of the image name"));
    /* what an author wrote is cut and kept on one line */
    CHECK(strstr(split(a, arena_printf(a, "nginx=%s\n", repeat(a, 'N', 300)), &p), "...\""));
    CHECK(!strchr(split(a, "nginx=a\nb", &p), '\n'));
    arena_free(a);
}

/* settings_load with one variable set; the message, or NULL when it loaded */
static const char *load_with(arena *a, const char *var, const char *value)
{
    setenv(var, value, 1);
    settings s;
    strtab *st = strtab_new(a);
    diag_reset();
    int rc = settings_load(a, st, &s);
    strtab_release(st);
    unsetenv(var);
    const char *m = rc < 0 ? arena_strdup(a, diag_message()) : NULL;
    diag_reset();
    return m;
}

TEST(parameters_name_the_key_and_the_rule)
{
    arena *a = arena_new();
    const char *m = load_with(a, "ARGOCD_ENV_LABELS", "{\"a/b/c\": \"x\"}");
    CHECK(m && strstr(m, "parameter \"labels\": key \"a/b/c\" is not a valid label key: it holds more than one '/'"));
    m = load_with(a, "ARGOCD_ENV_LABELS", "{\"\": \"y\"}");
    CHECK(m && strstr(m, "parameter \"labels\": key \"\" is not a valid label key"));
    m = load_with(a, "ARGOCD_APP_PARAMETERS", "[{\"name\":\"labels\",\"map\":{\"team\":\"web team\"}}]");
    CHECK(m && strstr(m, "parameter \"labels\": the value \"web team\" of key \"team\" is not a valid label value"));
    m = load_with(a, "ARGOCD_ENV_LABELS", "example.com/team=web,tier=");
    CHECK(!m);
    m = load_with(a, "ARGOCD_ENV_ANNOTATIONS",
                  "{\"example.com/why\": \"any text at all: / @ \\\" ok\", \"x/y/z\": \"1\"}");
    CHECK(m && strstr(m, "parameter \"annotations\": key \"x/y/z\" is not a valid annotation key"));
    m = load_with(a, "ARGOCD_ENV_ANNOTATIONS", "{\"Example.com/Why\": \"any text at all: / @ \\\" ok\"}");
    CHECK(!m);
    m = load_with(a, "ARGOCD_ENV_IMAGES", "nginxdemos/hello=foo:bar:baz");
    CHECK(m && strstr(m, "parameter \"images\": \"nginxdemos/hello=foo:bar:baz\": the new name \"foo:bar\" is not "
                         "valid"));
    m = load_with(a, "ARGOCD_ENV_IMAGES", "nginxdemos/hello:0.5,busybox=registry.k8s.io/busybox:1.36");
    CHECK(!m);
    /* a long key is cut in the message, and stays on one line */
    m = load_with(a, "ARGOCD_ENV_LABELS", arena_printf(a, "{\"%s/x\": \"1\"}", repeat(a, 'K', 300)));
    CHECK(m && strstr(m, "KKK...\"") && !strstr(m, repeat(a, 'K', 81)));
    arena_free(a);
}

TEST(annotations_parameter_fits_the_size_kubernetes_allows)
{
    arena *a = arena_new();
    /* keys and values count: 1 + (256 KiB - 1) is the most */
    const char *m = load_with(a, "ARGOCD_ENV_ANNOTATIONS",
                              arena_printf(a, "{\"a\": \"%s\"}", repeat(a, 'v', ANNOTATIONS_MAX_BYTES - 1)));
    CHECK(!m);
    m = load_with(a, "ARGOCD_ENV_ANNOTATIONS",
                  arena_printf(a, "{\"a\": \"%s\", \"b\": \"\"}", repeat(a, 'v', ANNOTATIONS_MAX_BYTES - 1)));
    CHECK(m && strstr(m, "parameter \"annotations\": its keys and values are 262145 bytes in all, more than the "
                         "262144"));
    arena_free(a);
}

TEST(annotation_domain_is_a_dns_subdomain)
{
    CHECK(check_annotation_domain("apps.example.com") == 0);
    diag_reset();
    CHECK(check_annotation_domain("Not_A_Domain") < 0);
    CHECK(strstr(diag_message(), "parameter \"annotation-domain\": \"Not_A_Domain\" is not a DNS subdomain"));
    diag_reset();
    CHECK(check_annotation_domain("bad\ndomain") < 0);
    CHECK(strstr(diag_message(), "\"bad\\ndomain\""));
    diag_reset();
}

TEST(image_parameter_becomes_a_set_image_config)
{
    arena *a = arena_new();
    node *d;
    CHECK(parse_image_override(a, "nginx:1.24=mirror.io/nginx:1.25@sha256:" D64, &d) == 0);
    CHECK_STR(path_str(d, "name", NULL), "nginx:1.24");
    CHECK_STR(path_str(d, "newName", NULL), "mirror.io/nginx");
    CHECK_STR(path_str(d, "newTag", NULL), "1.25");
    CHECK_STR(path_str(d, "digest", NULL), "sha256:" D64);
    CHECK(parse_image_override(a, "nginx=*:2", &d) == 0);
    CHECK(!map_get(d, "newName") && !map_get(d, "digest"));
    CHECK_STR(path_str(d, "newTag", NULL), "2");
    diag_reset();
    CHECK(parse_image_override(a, "nginx=-x", &d) < 0);
    CHECK(strstr(diag_message(), "parameter \"images\": \"nginx=-x\": the new name \"-x\" is not valid"));
    diag_reset();
    arena_free(a);
}
