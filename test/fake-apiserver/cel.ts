/** x-kubernetes-validations (CEL) for custom resources: filled in below once wired to a CEL evaluator. */
import { StatusCause } from './status';

export function validateCel(_obj: any, _old: any, _schema: any): StatusCause[] {
  return [];
}
