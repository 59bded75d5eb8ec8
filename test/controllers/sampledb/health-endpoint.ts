import { HEALTH_PATH } from '../../../controllers/sampledb/instance-script';

/** The answer of a database pod's health endpoint on 127.0.0.1:`port`; status 0 while nothing listens yet. */
export async function askHealth(port: number): Promise<{ status: number; body: string }> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}${HEALTH_PATH}`);
    return { status: res.status, body: await res.text() };
  } catch {
    return { status: 0, body: '' };
  }
}
