# CI only: Debian's nginx behaving as the official nginx image does for deploy/compose.yaml (its configuration at
# /etc/nginx/nginx.conf, in the foreground, logs to the container's output, SIGQUIT for a graceful stop).
ARG BASE
FROM ${BASE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends nginx-light \
 && rm -rf /var/lib/apt/lists/* \
 && ln -sf /dev/stdout /var/log/nginx/access.log \
 && ln -sf /dev/stderr /var/log/nginx/error.log
EXPOSE 80
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
