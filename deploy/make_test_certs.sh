#!/usr/bin/env bash
# Makes a throwaway PKI for trying TLS and mutual TLS with ldp-server: a test
# CA, a server certificate for localhost / 127.0.0.1 / ::1, an agent
# client certificate and a shuffler certificate (common name ldp-shuffler,
# good both for the shuffler's own listener and as its client certificate
# towards the server), all EC P-256 and signed by the CA, with the
# `openssl` command. For tests and demos only: the CA key sits next to the
# certificates, unprotected.
#
# Usage: deploy/make_test_certs.sh DIR
# Writes DIR/{ca,server,client,shuffler}.{pem,key}. Idempotent: when every file is
# there and both certificates verify against the CA, nothing is redone.
#
#   ldp-server --tls_cert_file=DIR/server.pem --tls_key_file=DIR/server.key \
#              --tls_client_ca_file=DIR/ca.pem --require_client_cert
#   ldp-agent  --server=localhost:50051 --tls_ca_file=DIR/ca.pem \
#              --tls_cert_file=DIR/client.pem --tls_key_file=DIR/client.key ...
#   ldp        --server=localhost:50051 --tls_ca_file=DIR/ca.pem study list
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
command -v openssl >/dev/null || { echo "$0: the openssl command is required" >&2; exit 1; }
DIR="$1"
mkdir -p "$DIR"
cd "$DIR"

complete() {
  for f in ca.pem ca.key server.pem server.key client.pem client.key \
           shuffler.pem shuffler.key; do
    [ -s "$f" ] || return 1
  done
  openssl verify -CAfile ca.pem server.pem client.pem shuffler.pem >/dev/null 2>&1
}
if complete; then
  exit 0
fi

umask 077
WORK="$(mktemp -d ./.certs.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
DAYS=3650

newkey() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

# The CA.
newkey "$WORK/ca.key"
openssl req -x509 -new -key "$WORK/ca.key" -sha256 -days "$DAYS" \
  -subj "/CN=LDP Aggregator test CA" \
  -addext "basicConstraints=critical,CA:TRUE" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -out "$WORK/ca.pem"

# sign NAME SUBJECT EXTENSIONS: a leaf certificate signed by the CA.
sign() {
  local name="$1" subject="$2" extensions="$3"
  newkey "$WORK/$name.key"
  openssl req -new -key "$WORK/$name.key" -subj "$subject" -out "$WORK/$name.csr"
  printf '%b\n' "$extensions" > "$WORK/$name.ext"
  openssl x509 -req -in "$WORK/$name.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" \
    -CAcreateserial -CAserial "$WORK/ca.srl" -sha256 -days "$DAYS" \
    -extfile "$WORK/$name.ext" -out "$WORK/$name.pem" 2>/dev/null
}

sign server "/CN=localhost" \
  "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1"
# The client's identity is its SAN URI, never a field in a message.
sign client "/CN=ldp-agent test batch" \
  "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\nsubjectAltName=URI:ldp://agent-batch/test"

# The shuffler: ldp-server --trusted_shufflers=ldp-shuffler admits it.
sign shuffler "/CN=ldp-shuffler" \
  "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1"

openssl verify -CAfile "$WORK/ca.pem" "$WORK/server.pem" "$WORK/client.pem" \
  "$WORK/shuffler.pem" >/dev/null
for f in ca.pem ca.key server.pem server.key client.pem client.key \
         shuffler.pem shuffler.key; do
  mv -f "$WORK/$f" "$f"
done
chmod 0644 ca.pem server.pem client.pem shuffler.pem
echo "test certificates written to $(pwd)"
