# cmp-generate sidecar image for the argocd-repo-server pod (Argo CD Config Management Plugin).
#
#   docker build -t ghcr.io/cmp-generate/cmp-generate:v0.1.0 .
#   docker build --build-arg HELM_VERSION=3.17.3 --build-arg KUSTOMIZE_VERSION=5.4.3 ...
#
# The entrypoint, /var/run/argocd/argocd-cmp-server, is not in this image: the repo-server pod's copyutil init
# container copies the argocd binary into the shared var-files volume, which the sidecar mounts at /var/run/argocd.
# The sidecar is meant to run as uid/gid 999 with readOnlyRootFilesystem and an emptyDir at /tmp, so everything
# that needs to write (HOME, caches, Helm state, the CMP work dir /tmp/_cmp_server) lives under /tmp.

# Pinned tool versions; override with --build-arg.
ARG HELM_VERSION=3.17.3
ARG KUSTOMIZE_VERSION=5.4.3

# --- build: compile cmp-generate -------------------------------------------------------------------------------
FROM debian:bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential pkg-config libfyaml-dev libyaml-dev libpcre2-dev libgit2-dev libmicrohttpd-dev zlib1g-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN make cmp-generate \
 && ./cmp-generate --version

# --- helm and kustomize: static binaries from their official images ---------------------------------------------
FROM alpine/helm:${HELM_VERSION} AS helm
FROM registry.k8s.io/kustomize/kustomize:v${KUSTOMIZE_VERSION} AS kustomize

# --- runtime ----------------------------------------------------------------------------------------------------
# cmp-generate links libfyaml, pcre2 and zlib statically and needs only libc to start; libgit2 is loaded at run time
# on the git paths alone (local dry runs' metadata, the package-revision stamp, pkg get, serve-params), and
# libmicrohttpd by serve-params alone (kustomize/params-server runs this image as the plugin generator's server).
# skopeo reads OCI charts' manifests for their org.opencontainers.image annotations (src/flux/oci_annotations.c)
# and registries' tag lists for an OCIRepository's ref.semver and ref.semverFilter (src/flux/oci_tags.c).
FROM debian:bookworm-slim AS runtime
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libgit2-1.5 libmicrohttpd12 ca-certificates skopeo \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 999 argocd \
 && useradd --uid 999 --gid 999 --home-dir /home/argocd --no-create-home --shell /usr/sbin/nologin argocd \
 && mkdir -p /home/argocd/cmp-server/config /home/argocd/cmp-server/config-named /home/argocd/cmp-server/plugins \
 && chown 999:999 /home/argocd /home/argocd/cmp-server/plugins

COPY --from=build /src/cmp-generate /usr/local/bin/cmp-generate
COPY --from=helm /usr/bin/helm /usr/local/bin/helm
COPY --from=kustomize /app/kustomize /usr/local/bin/kustomize
# The Kubernetes OpenAPI documents kubeconform and kubeval validate against (CMP_KUBE_OPENAPI_DIR's default for a
# binary in /usr/local/bin), with their license: a render never fetches a schema.
COPY data/kubernetes-openapi /usr/local/share/cmp-generate/kubernetes-openapi
# Two plugin configurations, one per sidecar (argocd-cmp-server serves one): kpt packages found by discovery
# (kustomize/component), and Applications that name the plugin for a chart, an overlay or plain YAML
# (kustomize/component-named, which passes --config-dir-path /home/argocd/cmp-server/config-named).
COPY plugin.yaml /home/argocd/cmp-server/config/plugin.yaml
COPY plugin-named.yaml /home/argocd/cmp-server/config-named/plugin.yaml

# Fail the build if a shared library is missing or a binary does not start; a git path (pkg get of a directory that
# is no repository) proves libgit2 loads: without it the message names libgit2 instead.
RUN ! ldd /usr/local/bin/cmp-generate | grep -q 'not found' \
 && /usr/local/bin/cmp-generate --version \
 && /usr/local/bin/cmp-generate pkg get /tmp /tmp/libgit2-check 2>&1 | grep -q 'not a git repository' \
 && ldconfig -p | grep -q 'libmicrohttpd\.so\.12 ' \
 && /usr/local/bin/helm version --short \
 && /usr/local/bin/kustomize version \
 && /usr/bin/skopeo --version

ENV HOME=/tmp \
    XDG_CACHE_HOME=/tmp/.cache \
    XDG_CONFIG_HOME=/tmp/.config \
    XDG_DATA_HOME=/tmp/.local/share \
    HELM_CACHE_HOME=/tmp/.cache/helm \
    HELM_CONFIG_HOME=/tmp/.config/helm \
    HELM_DATA_HOME=/tmp/.local/share/helm

WORKDIR /home/argocd
# Numeric, so that Kubernetes can check runAsNonRoot without a runAsUser in the pod spec.
USER 999
ENTRYPOINT ["/var/run/argocd/argocd-cmp-server"]
