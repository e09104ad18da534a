# CI only: Debian's PostgreSQL behaving as the official postgres image does for deploy/compose.yaml
# (POSTGRES_USER/PASSWORD/DB create the role and database on the first start, data in /var/lib/postgresql/data,
# password auth over the network, trust on the local socket, pg_isready and pg_dump on PATH).
ARG BASE
FROM ${BASE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
    PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME /var/lib/postgresql/data
# Fast shutdown, as the official image: SIGTERM would wait for every client to go.
STOPSIGNAL SIGINT
EXPOSE 5432
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["postgres"]
