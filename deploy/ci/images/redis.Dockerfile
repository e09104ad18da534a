# CI only: Debian's Redis behaving as the official redis image does for deploy/compose.yaml (redis-server and
# redis-cli on PATH, reachable from the other containers: the official build turns protected mode off).
ARG BASE
FROM ${BASE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/*
COPY redis-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
EXPOSE 6379
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["redis-server"]
