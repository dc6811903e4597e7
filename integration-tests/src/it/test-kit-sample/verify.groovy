// The sample's tests ran and passed: a build that skipped them would prove nothing.
def report = new File(basedir, 'target/surefire-reports/TEST-com.example.quotes.QuoteServiceTest.xml')
assert report.isFile() : 'QuoteServiceTest did not run'
def head = report.text.find(/<testsuite[^>]*>/)
def count = { String name -> (head =~ /\b${name}="(\d+)"/)[0][1].toInteger() }
assert count('tests') >= 4 : "only ${count('tests')} tests ran"
assert count('failures') == 0 && count('errors') == 0 && count('skipped') == 0 : head
return true
