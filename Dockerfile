# Switchboard: build with Swift 6.3 (the toolchain Package.swift names), run on a slim Debian bookworm.
#   docker build -t switchboard .
#   docker run -p 8080:8080 switchboard
# The bundled manifest is /etc/switchboard/routes.json; mount a folder there (a
# ConfigMap in Kubernetes) to serve your own: changes are picked up without a restart.

FROM swift:6.3-bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends libmicrohttpd-dev zlib1g-dev pkg-config libcurl4-openssl-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
RUN swift build -c release --experimental-lto-mode=full --static-swift-stdlib --product switchboard \
 && cp "$(swift build -c release --experimental-lto-mode=full --show-bin-path)/switchboard" /usr/local/bin/switchboard

FROM debian:bookworm-slim
# Only what the binary links beyond glibc: libmicrohttpd (and its GnuTLS), zlib, libstdc++,
# and libcurl for the statically linked FoundationNetworking (`validate --server`).
RUN apt-get update \
 && apt-get install -y --no-install-recommends libmicrohttpd12 zlib1g libstdc++6 libcurl4 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --no-create-home switchboard
COPY --from=build /usr/local/bin/switchboard /usr/local/bin/switchboard
COPY Config/routes.json /etc/switchboard/routes.json
USER switchboard
ENV SWITCHBOARD_CONFIG=/etc/switchboard/routes.json SWITCHBOARD_HOST=0.0.0.0 SWITCHBOARD_PORT=8080
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=2s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET /healthz HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n' >&3 && grep -q ' 200 ' <&3"]
ENTRYPOINT ["switchboard", "serve"]
