# mcptest from source, for docker:// users who build their own image
# (`docker build --build-arg VERSION=1.2.3 --build-arg COMMIT=$(git rev-parse HEAD)
# --build-arg DATE=$(git log -1 --format=%cI) .`: .git stays out of the
# context, so the commit and its date come in as build arguments). Releases publish a prebuilt
# image, ghcr.io/mcptest/mcptest:vX (release.Dockerfile), and the Action
# itself runs the release binary on the host (action.yml). CI's image job
# builds this file and smoke-tests it; TestDockerfileBuildsTheReleaseBinary
# holds its go build to the release's. Both base images are pinned by
# digest; Dependabot bumps them.
FROM golang:1.26-alpine@sha256:7a3e50096189ad57c9f9f865e7e4aa8585ed1585248513dc5cda498e2f41812c AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=0.1.0
ARG COMMIT=
ARG DATE=
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -buildvcs=false -ldflags="-s -w -X main.version=${VERSION} -X main.commit=${COMMIT} -X main.date=${DATE}" -o /mcptest ./cmd/mcptest

# distroless/static: CA certificates and nothing else; runs as root, as
# container actions must (the workspace and file-command paths are the runner's).
FROM gcr.io/distroless/static-debian12@sha256:4b2a093ef4649bccd586625090a3c668b254cfe180dee54f4c94f3e9bd7e381e
COPY --from=build /mcptest /mcptest
# The image is the CLI: `docker run IMAGE --version`, `docker run -v
# "$PWD:/work" -w /work IMAGE run --config suite.yml`. With no arguments (how
# a `docker://` step without args starts it) it runs `mcptest action`.
ENTRYPOINT ["/mcptest"]
CMD ["action"]
