/**
 * Throw-away certificates for tests and startBroker({ tls: true }), made with the `openssl` CLI:
 * a CA, and certificates it signs (a server certificate for localhost / 127.0.0.1 / ::1, client
 * certificates with any subject). EC P-256 keys keep generation fast. Files are written to a
 * temporary directory the caller may remove.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCa {
  dir: string;
  /** PEM */
  cert: string;
  certFile: string;
  keyFile: string;
}

export interface IssuedCertificate {
  /** PEM certificate (leaf only) and unencrypted PEM private key. */
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
  /** Key and certificate in one PEM file (ssl.keystore.type=PEM, ssl.keystore.location). */
  pemFile: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

let serial = Date.now();

export function createTestCa(dir = mkdtempSync(join(tmpdir(), 'samsa-tls-')), subject = '/CN=Samsa Test CA'): TestCa {
  const keyFile = join(dir, 'ca-key.pem');
  const certFile = join(dir, 'ca-cert.pem');
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyFile], dir);
  openssl(['req', '-x509', '-new', '-key', keyFile, '-sha256', '-days', '3650', '-subj', subject, '-out', certFile,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], dir);
  return { dir, cert: readFileSync(certFile, 'utf8'), certFile, keyFile };
}

/**
 * A certificate signed by `ca`. `subject` in openssl's form (`/C=US/O=Acme/CN=alice`); `hosts`
 * become subjectAltNames (DNS names or IP addresses) for server certificates.
 */
export function issueCertificate(ca: TestCa, name: string, subject: string, hosts: string[] = []): IssuedCertificate {
  const dir = ca.dir;
  const keyFile = join(dir, `${name}-key.pem`);
  const csrFile = join(dir, `${name}.csr`);
  const certFile = join(dir, `${name}-cert.pem`);
  const extFile = join(dir, `${name}.ext`);
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${keyFile}.ec`], dir);
  // PKCS#8, the form Java's PEM keystores read.
  openssl(['pkcs8', '-topk8', '-nocrypt', '-in', `${keyFile}.ec`, '-out', keyFile], dir);
  openssl(['req', '-new', '-key', keyFile, '-subj', subject, '-out', csrFile], dir);
  const san = hosts.map((h) => (/^[\d.]+$|:/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(',');
  writeFileSync(extFile, `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n${san ? `subjectAltName=${san}\n` : ''}`);
  openssl(['x509', '-req', '-in', csrFile, '-CA', ca.certFile, '-CAkey', ca.keyFile, '-set_serial', String(serial++),
    '-days', '3650', '-sha256', '-extfile', extFile, '-out', certFile], dir);
  const cert = readFileSync(certFile, 'utf8');
  const key = readFileSync(keyFile, 'utf8');
  const pemFile = join(dir, `${name}.pem`);
  writeFileSync(pemFile, `${key}${cert}`);
  return { cert, key, certFile, keyFile, pemFile };
}

/** The certificate and key as a PKCS12 file (ssl.keystore.type=PKCS12). */
export function toPkcs12(ca: TestCa, issued: IssuedCertificate, name: string, password: string): string {
  const file = join(ca.dir, `${name}.p12`);
  openssl(['pkcs12', '-export', '-in', issued.certFile, '-inkey', issued.keyFile, '-certfile', ca.certFile,
    '-passout', `pass:${password}`, '-out', file], ca.dir);
  return file;
}

/** A server certificate for the loopback names. */
export function issueServerCertificate(ca: TestCa, name = 'broker'): IssuedCertificate {
  return issueCertificate(ca, name, '/CN=localhost', ['localhost', '127.0.0.1', '::1']);
}
