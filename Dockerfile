# mynah in a container: a static binary on a distroless base, running as a non-root user,
# with the data on a volume. Build: docker build -t mynah .
# Run:   docker run -v mynah-data:/data -v $PWD/mybot:/config:ro \
#          -e TELEGRAM_BOT_TOKEN -e OPENAI_API_KEY mynah
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
COPY third_party ./third_party
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/mynah ./cmd/mynah

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/mynah /usr/local/bin/mynah
# The database, episodic notes and the data dir's lock live on the volume; the
# configuration directory is mounted read-only at /config.
ENV MYNAH_DATA_DIR=/data \
    MYNAH_METRICS_LISTEN=0.0.0.0:9464
VOLUME ["/data"]
EXPOSE 9464
USER nonroot:nonroot
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
  CMD ["/usr/local/bin/mynah", "health", "--url", "http://127.0.0.1:9464/readyz"]
ENTRYPOINT ["/usr/local/bin/mynah"]
CMD ["serve", "--config", "/config"]
