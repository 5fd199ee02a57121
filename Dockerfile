# The mcptest GitHub Action: a static binary on a minimal base.
# The runner rebuilds this on every job that uses the action by path; releases
# should reference a prebuilt image by tag or digest instead (see README).
FROM golang:1.26-alpine AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags="-s -w -X main.version=${VERSION}" -o /mcptest ./cmd/mcptest

# distroless/static: CA certificates and nothing else; runs as root, as
# container actions must (the workspace and file-command paths are the runner's).
FROM gcr.io/distroless/static-debian12
COPY --from=build /mcptest /mcptest
ENTRYPOINT ["/mcptest", "action"]
