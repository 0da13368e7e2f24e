# Stores dml's code packages in a Ray cluster's GCS, where every node's runtime-env agent
# fetches them (Java has no writer for the GCS key-value store; Ray's own client does it).
# Input on stdin, JSON: {"address": "host:port", "limit": bytes,
#   "packages": [{"uri": "gcs://dml-....zip", "entries": [[name in zip, file], ...]}]}
# Output: one line per package, "cached URI" or "uploaded URI BYTES"; on failure one line
# "error: ..." and exit code 1.
import io
import json
import sys
import zipfile


def main():
    request = json.load(sys.stdin)
    from ray._raylet import GcsClient

    client = GcsClient(address=request["address"])
    for package in request["packages"]:
        uri = package["uri"].encode()
        if client.internal_kv_exists(uri, None):
            print("cached", package["uri"], flush=True)
            continue
        buffer = io.BytesIO()
        # stored, not deflated: the entries are jars, compressed already
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as z:
            for name, path in package["entries"]:
                z.write(path, name)
        data = buffer.getvalue()
        if len(data) >= request["limit"]:
            raise ValueError(
                "%s would be %d MiB, over the cluster's limit of %d MiB"
                % (package["uri"], len(data) >> 20, request["limit"] >> 20))
        # not overwrite: another session may be storing the same content right now
        client.internal_kv_put(uri, data, False, None)
        print("uploaded", package["uri"], len(data), flush=True)


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # one line for the Java side's message
        print("error: %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
        sys.exit(1)
