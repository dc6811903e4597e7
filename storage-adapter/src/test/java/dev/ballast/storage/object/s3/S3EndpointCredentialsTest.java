package dev.ballast.storage.object.s3;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.ballast.storage.object.PresignRequest;
import dev.ballast.storage.object.PresignedRequest;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.profiles.ProfileFile;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Where an {@link S3Endpoint} takes its credentials and region from, seen in what reaches the server:
 * the access key and region in the signature's scope, and a session token sent and signed as
 * {@code X-Amz-Security-Token}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class S3EndpointCredentialsTest {

    private static WireMockServer wireMock;
    private static HttpClient jdk;

    @BeforeAll
    static void startServer() {
        wireMock = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
        wireMock.start();
        jdk = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void stopServer() {
        wireMock.stop();
    }

    @BeforeEach
    void reset() {
        wireMock.resetAll();
        wireMock.stubFor(any(anyUrl()).willReturn(aResponse().withStatus(200)));
    }

    private S3Endpoint.Builder endpoint() {
        return S3Endpoint.newBuilder().endpoint(URI.create(wireMock.baseUrl())).httpClient(jdk);
    }

    private static LoggedRequest headBucket(S3Endpoint endpoint) {
        try (S3Client client = endpoint.newClient()) {
            client.headBucket(b -> b.bucket("bucket"));
        }
        List<LoggedRequest> requests = wireMock.findAll(anyRequestedFor(anyUrl()));
        assertThat(requests).hasSize(1);
        return requests.get(0);
    }

    @Test
    void aProvidersSessionTokenIsSentAndSignedAsXAmzSecurityToken() {
        S3Endpoint endpoint = endpoint()
                .region("eu-central-1")
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsSessionCredentials.create("ASIATEMP", "secret", "the-session-token")))
                .build();

        LoggedRequest sent = headBucket(endpoint);

        assertThat(sent.getHeader("X-Amz-Security-Token")).isEqualTo("the-session-token");
        assertThat(sent.getHeader("Authorization"))
                .contains("Credential=ASIATEMP/")
                .contains("/eu-central-1/s3/aws4_request")
                .containsPattern("SignedHeaders=[^,]*x-amz-security-token");
    }

    @Test
    void staticKeysWithASessionTokenAreSentAsTheyAre() {
        S3Endpoint endpoint = endpoint()
                .region("eu-central-1")
                .credentials("ASIASTATIC", "secret", "static-token")
                .build();

        LoggedRequest sent = headBucket(endpoint);

        assertThat(sent.getHeader("X-Amz-Security-Token")).isEqualTo("static-token");
        assertThat(sent.getHeader("Authorization")).contains("Credential=ASIASTATIC/");
    }

    @Test
    void theDefaultChainPassesOnASessionTokenFromTheSystemProperties() {
        assumeThat(System.getenv("AWS_ACCESS_KEY_ID"))
                .as("AWS_ACCESS_KEY_ID is set in this environment and would come first")
                .isNull();
        String[] names = {"aws.accessKeyId", "aws.secretAccessKey", "aws.sessionToken"};
        String[] before = new String[names.length];
        for (int i = 0; i < names.length; i++) {
            before[i] = System.getProperty(names[i]);
        }
        System.setProperty("aws.accessKeyId", "ASIAPROPS");
        System.setProperty("aws.secretAccessKey", "secret");
        System.setProperty("aws.sessionToken", "token-from-the-chain");
        try {
            LoggedRequest sent = headBucket(endpoint().region("us-east-1").build());

            assertThat(sent.getHeader("X-Amz-Security-Token")).isEqualTo("token-from-the-chain");
            assertThat(sent.getHeader("Authorization")).contains("Credential=ASIAPROPS/");
        } finally {
            for (int i = 0; i < names.length; i++) {
                if (before[i] == null) {
                    System.clearProperty(names[i]);
                } else {
                    System.setProperty(names[i], before[i]);
                }
            }
        }
    }

    @Test
    void aProfileGivesTheKeysItsSessionTokenAndItsRegion(@TempDir Path dir) throws IOException {
        assumeThat(System.getenv("AWS_REGION"))
                .as("AWS_REGION is set in this environment and would come before the profile's region")
                .isNull();
        assumeThat(System.getProperty("aws.region")).as("aws.region is set").isNull();
        Path credentials = Files.writeString(dir.resolve("credentials"), """
                [prod]
                aws_access_key_id = ASIAPROFILE
                aws_secret_access_key = secret
                aws_session_token = token-from-the-profile
                """);
        Path config = Files.writeString(dir.resolve("config"), """
                [profile prod]
                region = eu-west-3
                """);
        ProfileFile files = ProfileFile.aggregator()
                .addFile(ProfileFile.builder()
                        .content(credentials)
                        .type(ProfileFile.Type.CREDENTIALS)
                        .build())
                .addFile(ProfileFile.builder()
                        .content(config)
                        .type(ProfileFile.Type.CONFIGURATION)
                        .build())
                .build();

        S3Endpoint endpoint = endpoint().profile("prod", files).build();
        LoggedRequest sent = headBucket(endpoint);

        assertThat(endpoint.region()).isEqualTo("eu-west-3");
        assertThat(sent.getHeader("Authorization"))
                .contains("Credential=ASIAPROFILE/")
                .contains("/eu-west-3/s3/aws4_request");
        assertThat(sent.getHeader("X-Amz-Security-Token")).isEqualTo("token-from-the-profile");
        assertThat(S3Endpoint.newBuilder()
                        .profile("prod", files)
                        .region("ap-south-1")
                        .build()
                        .region())
                .as("a region given wins over the profile's")
                .isEqualTo("ap-south-1");
    }

    @Test
    void anAssumeRoleProfileGetsTemporaryKeysFromStsAndSignsWithThem(@TempDir Path dir) throws IOException {
        wireMock.stubFor(com.github.tomakehurst.wiremock.client.WireMock.post(
                        com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo("/"))
                .withRequestBody(com.github.tomakehurst.wiremock.client.WireMock.containing("Action=AssumeRole"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "text/xml")
                        .withBody("""
                                <AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
                                  <AssumeRoleResult>
                                    <Credentials>
                                      <AccessKeyId>ASIAROLE</AccessKeyId>
                                      <SecretAccessKey>role-secret</SecretAccessKey>
                                      <SessionToken>role-session-token</SessionToken>
                                      <Expiration>2099-01-01T00:00:00Z</Expiration>
                                    </Credentials>
                                    <AssumedRoleUser>
                                      <Arn>arn:aws:sts::123456789012:assumed-role/backup/ballast</Arn>
                                      <AssumedRoleId>AROAEXAMPLE:ballast</AssumedRoleId>
                                    </AssumedRoleUser>
                                  </AssumeRoleResult>
                                  <ResponseMetadata><RequestId>r1</RequestId></ResponseMetadata>
                                </AssumeRoleResponse>
                                """)));
        Path config = Files.writeString(dir.resolve("config"), """
                [profile base]
                aws_access_key_id = AKIDBASE
                aws_secret_access_key = base-secret
                [profile backup]
                role_arn = arn:aws:iam::123456789012:role/backup
                source_profile = base
                region = eu-west-1
                """);
        ProfileFile files = ProfileFile.builder()
                .content(config)
                .type(ProfileFile.Type.CONFIGURATION)
                .build();
        String before = System.getProperty("aws.endpointUrlSts");
        System.setProperty("aws.endpointUrlSts", wireMock.baseUrl()); // the SDK's STS client, sent here
        try {
            S3Endpoint endpoint = endpoint().profile("backup", files).build();
            try (S3Client client = endpoint.newClient()) {
                client.headBucket(b -> b.bucket("bucket"));
            }
        } finally {
            if (before == null) {
                System.clearProperty("aws.endpointUrlSts");
            } else {
                System.setProperty("aws.endpointUrlSts", before);
            }
        }

        List<LoggedRequest> all = wireMock.findAll(anyRequestedFor(anyUrl()));
        assertThat(all).extracting(r -> r.getMethod().getName()).containsExactly("POST", "HEAD");
        assertThat(all.get(0).getBodyAsString()).contains("RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fbackup");
        assertThat(all.get(0).getHeader("Authorization")).contains("Credential=AKIDBASE/");
        assertThat(all.get(1).getHeader("Authorization"))
                .contains("Credential=ASIAROLE/")
                .contains("/eu-west-1/s3/aws4_request");
        assertThat(all.get(1).getHeader("X-Amz-Security-Token")).isEqualTo("role-session-token");
    }

    @Test
    void aPresignedUrlCarriesTheSessionTokenAndTheExpiryInItsQuery() {
        S3Endpoint endpoint = endpoint()
                .region("eu-central-1")
                .credentials("ASIATEMP", "secret", "url-token")
                .build();
        Presigner presigner = new Presigner(endpoint, "bucket");
        try {
            PresignedRequest get = presigner.presign(PresignRequest.get("a/b.txt", Duration.ofMinutes(5)));

            assertThat(get.url().toString())
                    .startsWith(wireMock.baseUrl() + "/bucket/a/b.txt?")
                    .contains("X-Amz-Security-Token=url-token")
                    .contains("X-Amz-Expires=300")
                    .contains("X-Amz-Credential=ASIATEMP%2F");
            assertThat(get.toString()).doesNotContain("X-Amz-Signature");
        } finally {
            presigner.close();
        }
    }
}
