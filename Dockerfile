# Builds berth's binaries from vendor/ with no network, into a distroless image that runs as non-root.
FROM golang:1.26 AS build
WORKDIR /src
COPY . .
ARG VERSION=v1.37.2+berth.image
ENV CGO_ENABLED=0 GOFLAGS="-mod=vendor -overlay=hack/patches/overlay.json" GOPROXY=off
RUN LDFLAGS="-s -w -X k8s.io/component-base/version.gitVersion=${VERSION} \
      -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37" && \
    for cmd in berth-scheduler berth-extender berth-gpu-links; do \
      go build -trimpath -ldflags "$LDFLAGS" -o "/out/$cmd" "./cmd/$cmd"; \
    done

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ /
USER 65532:65532
ENTRYPOINT ["/berth-scheduler"]
