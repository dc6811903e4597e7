package dev.ballast.storage.object.s3;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Some S3-compatible servers (s3proxy among them) answer a conditional request with 412 and close
 * the connection, cutting their error document short. The status is the answer: the SDK must see a
 * 412, not an I/O failure that hides it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ErrorAnswerCutShortTest {

  @Test
  void errorAnswer_whoseBodyBreaksOff_stillReachesTheCallerAsItsStatus() throws Exception {
    // given: a server that answers 412 sends 20 bytes of its error document and resets
    try (CuttingServer server = new CuttingServer();
        S3Client s3 = S3ClientFactory.builder(HttpClient.newHttpClient())
            .endpoint(server.uri()).region("us-east-1").credentials("key", "secret").pathStyle(true).build()) {

      // when
      Throwable thrown = catchThrowable(() -> s3.putObject(
          b -> b.bucket("bucket").key("key").contentLength(0L).ifNoneMatch("*"), RequestBody.empty()));

      // then
      assertThat(thrown).isInstanceOf(S3Exception.class);
      assertThat(((S3Exception) thrown).statusCode()).isEqualTo(412);
    }
  }

  private static final class CuttingServer implements AutoCloseable {
    private final ServerSocket serverSocket;
    private final Thread thread;

    CuttingServer() throws IOException {
      serverSocket = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
      thread = new Thread(this::serve, "cutting-server");
      thread.setDaemon(true);
      thread.start();
    }

    URI uri() {
      return URI.create("http://127.0.0.1:" + serverSocket.getLocalPort());
    }

    private void serve() {
      while (!serverSocket.isClosed()) {
        try (Socket socket = serverSocket.accept()) {
          InputStream in = socket.getInputStream();
          ByteArrayOutputStream head = new ByteArrayOutputStream();
          while (!head.toString(US_ASCII).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
              break;
            }
            head.write(b);
          }
          OutputStream out = socket.getOutputStream();
          out.write(("HTTP/1.1 412 Precondition Failed\r\nContent-Type: application/xml\r\n"
              + "Connection: close\r\n\r\n<?xml version=\"1.0\"").getBytes(US_ASCII));
          out.flush();
          // Hold the connection briefly, as a server still refusing the body does, then close it.
          socket.setSoTimeout(300);
          try {
            while (in.read() >= 0) {
              // discard whatever of the request body is still arriving
            }
          } catch (java.net.SocketTimeoutException enough) {
            // reset now (linger 0), with the error document cut short
          }
          socket.setSoLinger(true, 0);
        } catch (IOException e) {
          // the listener was closed, or the client reset: either way this answer is over
        }
      }
    }

    @Override
    public void close() throws IOException {
      serverSocket.close();
      thread.interrupt();
    }
  }
}
