// The build must fail on exactly the third-party dependencies: each is refused for its missing
// version, while ballast-http-client got its version from ballast-bom.
def log = new File(basedir, 'build.log').text
def thirdParty = [
    'com.fasterxml.jackson.core:jackson-databind',
    'io.micrometer:micrometer-core',
    'software.amazon.awssdk:s3',
    'org.slf4j:slf4j-api',
    'org.gaul:s3proxy',
    'org.testcontainers:testcontainers-minio',
    'org.wiremock:wiremock-standalone',
    'org.junit.jupiter:junit-jupiter',
]
thirdParty.each { ga ->
    assert log.contains("'dependencies.dependency.version' for ${ga}:jar is missing") :
            "ballast-bom manages ${ga}, which must stay the user's choice"
}
assert !log.contains("for dev.ballast:ballast-http-client:jar is missing") : 'ballast-bom did not manage ballast-http-client'
return true
