# The released image, built by goreleaser (dockers_v2) from the release
# binary of each platform: no Go toolchain, nothing to compile.
# The base is pinned by digest; Dependabot (.github/dependabot.yml) bumps it.
FROM gcr.io/distroless/static-debian12@sha256:4b2a093ef4649bccd586625090a3c668b254cfe180dee54f4c94f3e9bd7e381e
ARG TARGETPLATFORM
COPY $TARGETPLATFORM/mcptest /mcptest
# The CLI, `action` when started with no arguments (as Dockerfile).
ENTRYPOINT ["/mcptest"]
CMD ["action"]
