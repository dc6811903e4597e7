/**
 * Ballast storage-adapter: block volumes and versioned, SHA-256-verified objects on S3 or in a local
 * object store, behind
 * {@link dev.ballast.storage.StorageFacade}. Every package is exported except
 * {@code dev.ballast.storage.internal}, which only the test kit ({@code dev.ballast.test}) reads. The AWS SDK types that appear in the S3 packages' public
 * signatures ({@code S3Client}, {@code SdkHttpClient}, {@code SdkException}, {@code AwsCredentialsProvider},
 * {@code ProfileFile}) and the
 * {@code java.net.http} client are read transitively.
 */
module dev.ballast.storage {
  requires transitive dev.ballast.http;
  requires transitive java.net.http;
  requires transitive software.amazon.awssdk.core;
  requires transitive software.amazon.awssdk.http;
  requires transitive software.amazon.awssdk.services.s3;
  requires transitive software.amazon.awssdk.auth;
  requires transitive software.amazon.awssdk.profiles;
  requires software.amazon.awssdk.utils;
  requires software.amazon.awssdk.http.auth.aws;
  requires software.amazon.awssdk.http.auth.spi;
  requires software.amazon.awssdk.identity.spi;
  requires software.amazon.awssdk.awscore;
  requires software.amazon.awssdk.endpoints;
  requires software.amazon.awssdk.regions;
  requires org.slf4j;
  requires static org.jspecify;
  requires java.sql;
  requires org.xerial.sqlitejdbc;
  // Optional: only dev.ballast.storage.crypto.kms uses it, and only when the application adds it.
  requires static software.amazon.awssdk.services.kms;

  exports dev.ballast.storage;
  exports dev.ballast.storage.block;
  exports dev.ballast.storage.cache;
  exports dev.ballast.storage.chaos;
  exports dev.ballast.storage.crypto;
  exports dev.ballast.storage.crypto.kms;
  exports dev.ballast.storage.object;
  exports dev.ballast.storage.object.local;
  exports dev.ballast.storage.object.s3;
  exports dev.ballast.storage.object.s3.transport;
  // The test kit (ballast-test, automatic module dev.ballast.test) verifies reads and validates keys
  // exactly as the stores do, with these classes.
  exports dev.ballast.storage.internal to dev.ballast.test;

  // The HTTP implementation the SDK's own STS and SSO clients (credential providers) find.
  provides software.amazon.awssdk.http.SdkHttpService with
      dev.ballast.storage.object.s3.transport.JdkSdkHttpService;
}
