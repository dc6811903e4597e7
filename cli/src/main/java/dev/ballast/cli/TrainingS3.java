package dev.ballast.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A versioned S3 bucket in memory behind an HTTP server on a loopback port, just enough of S3 for the
 * commands of {@link ClassDataTraining} to run a backup and a restore against it as they would against
 * an endpoint, so the classes they load there (the SDK's requests and responses, its XML parser, the
 * lambdas of its models) are archived too: a training that only met a closed port archived the
 * client's building, and every command on an endpoint then loaded about 1,300 classes from the jars
 * (958 of them lambdas made at run time). Objects, versions (all kept), user metadata, ranged GETs,
 * both listings and version deletes; no authentication, conditions or checksums (the capability probe
 * finds them missing, as on Ceph RGW). For the training only: never a store for data. Thread-safe.
 */
final class TrainingS3 implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "ballast-training-s3");
        t.setDaemon(true);
        return t;
    });
    /** Versions by key, oldest first. */
    private final Map<String, List<Version>> objects = new TreeMap<>();

    private int nextVersion;

    private record Version(String id, byte[] bytes, Map<String, String> meta, String eTag, Instant modified) {}

    TrainingS3() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/", this::handle);
        server.setExecutor(threads);
        server.start();
    }

    /** The endpoint to pass as {@code --endpoint}. */
    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }

    private void handle(HttpExchange x) throws IOException {
        try (x) {
            byte[] body = x.getRequestBody().readAllBytes();
            String path = x.getRequestURI().getRawPath();
            Map<String, String> q = query(x.getRequestURI().getRawQuery());
            int slash = path.indexOf('/', 1);
            String key = slash < 0 ? "" : URLDecoder.decode(path.substring(slash + 1), StandardCharsets.UTF_8);
            String method = x.getRequestMethod();
            synchronized (this) {
                if (key.isEmpty()) {
                    bucket(x, method, q);
                } else {
                    object(x, method, key, q, body);
                }
            }
        } catch (RuntimeException e) {
            x.sendResponseHeaders(500, -1);
        }
    }

    private void bucket(HttpExchange x, String method, Map<String, String> q) throws IOException {
        if (!method.equals("GET")) {
            x.sendResponseHeaders(200, -1); // HEAD, create, versioning on
            return;
        }
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
        String prefix = q.getOrDefault("prefix", "");
        if (q.containsKey("versioning")) {
            xml.append("<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>");
        } else if (q.containsKey("versions")) {
            xml.append("<ListVersionsResult><Name>b</Name><Prefix>")
                    .append(prefix)
                    .append("</Prefix>");
            xml.append("<IsTruncated>false</IsTruncated>");
            objects.forEach((k, vs) -> {
                if (k.startsWith(prefix)) {
                    for (int i = vs.size() - 1; i >= 0; i--) {
                        Version v = vs.get(i);
                        xml.append("<Version><Key>")
                                .append(k)
                                .append("</Key><VersionId>")
                                .append(v.id());
                        xml.append("</VersionId><IsLatest>")
                                .append(i == vs.size() - 1)
                                .append("</IsLatest>");
                        xml.append("<LastModified>").append(v.modified()).append("</LastModified><ETag>\"");
                        xml.append(v.eTag())
                                .append("\"</ETag><Size>")
                                .append(v.bytes().length)
                                .append("</Size>");
                        xml.append("<StorageClass>STANDARD</StorageClass></Version>");
                    }
                }
            });
            xml.append("</ListVersionsResult>");
        } else {
            xml.append("<ListBucketResult><Name>b</Name><Prefix>")
                    .append(prefix)
                    .append("</Prefix>");
            xml.append("<IsTruncated>false</IsTruncated>");
            int[] n = {0};
            objects.forEach((k, vs) -> {
                if (k.startsWith(prefix) && !vs.isEmpty()) {
                    Version v = vs.get(vs.size() - 1);
                    n[0]++;
                    xml.append("<Contents><Key>")
                            .append(k)
                            .append("</Key><LastModified>")
                            .append(v.modified());
                    xml.append("</LastModified><ETag>\"").append(v.eTag()).append("\"</ETag><Size>");
                    xml.append(v.bytes().length).append("</Size><StorageClass>STANDARD</StorageClass></Contents>");
                }
            });
            xml.append("<KeyCount>").append(n[0]).append("</KeyCount></ListBucketResult>");
        }
        byte[] out = xml.toString().getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().add("Content-Type", "application/xml");
        x.sendResponseHeaders(200, out.length);
        try (OutputStream o = x.getResponseBody()) {
            o.write(out);
        }
    }

    private void object(HttpExchange x, String method, String key, Map<String, String> q, byte[] body)
            throws IOException {
        List<Version> versions = objects.computeIfAbsent(key, k -> new ArrayList<>());
        if (method.equals("PUT")) {
            Map<String, String> meta = new HashMap<>();
            x.getRequestHeaders().forEach((h, vs) -> {
                if (h.toLowerCase(java.util.Locale.ROOT).startsWith("x-amz-meta-")) {
                    meta.put(h.toLowerCase(java.util.Locale.ROOT), vs.get(0));
                }
            });
            Version v = new Version(
                    Integer.toString(++nextVersion),
                    body,
                    meta,
                    md5(body),
                    Instant.ofEpochSecond(Instant.now().getEpochSecond()));
            versions.add(v);
            x.getResponseHeaders().add("ETag", "\"" + v.eTag() + "\"");
            x.getResponseHeaders().add("x-amz-version-id", v.id());
            x.sendResponseHeaders(200, -1);
            return;
        }
        String id = q.get("versionId");
        Version v = null;
        for (Version c : versions) {
            if (id == null || c.id().equals(id)) {
                v = c;
            }
        }
        if (method.equals("DELETE")) {
            versions.removeIf(c -> id == null || c.id().equals(id));
            x.getResponseHeaders().add("x-amz-version-id", id == null ? "0" : id);
            x.sendResponseHeaders(204, -1);
            return;
        }
        if (v == null) {
            x.sendResponseHeaders(404, -1);
            return;
        }
        var h = x.getResponseHeaders();
        h.add("ETag", "\"" + v.eTag() + "\"");
        h.add("x-amz-version-id", v.id());
        h.add(
                "Last-Modified",
                java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
                        v.modified().atZone(java.time.ZoneOffset.UTC)));
        v.meta().forEach(h::add);
        int from = 0;
        int to = v.bytes().length;
        String range = x.getRequestHeaders().getFirst("Range");
        if (range != null && range.startsWith("bytes=") && to > 0) {
            String[] r = range.substring(6).split("-", 2);
            from = Math.min(Integer.parseInt(r[0]), to);
            to = r[1].isEmpty() ? to : Math.min(to, Integer.parseInt(r[1]) + 1);
            h.add("Content-Range", "bytes " + from + "-" + (to - 1) + "/" + v.bytes().length);
        }
        int status = range != null ? 206 : 200;
        if (method.equals("HEAD")) {
            h.add("Content-Length", Integer.toString(to - from));
            x.sendResponseHeaders(status, -1);
            return;
        }
        x.sendResponseHeaders(status, to - from == 0 ? -1 : to - from);
        try (OutputStream o = x.getResponseBody()) {
            o.write(v.bytes(), from, to - from);
        }
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> q = new HashMap<>();
        if (raw != null) {
            for (String p : raw.split("&")) {
                int eq = p.indexOf('=');
                String k = URLDecoder.decode(eq < 0 ? p : p.substring(0, eq), StandardCharsets.UTF_8);
                q.put(k, eq < 0 ? "" : URLDecoder.decode(p.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return q;
    }

    private static String md5(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            return "0";
        }
    }
}
