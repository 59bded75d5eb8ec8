import { printerColumnJsonPathError } from './kubectl-jsonpath';
import { checkSimpleJsonPath } from './subresources';
import { child, index, invalid, isObject, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { JSONSchemaProps } from '../schema/json-schema-props';
import { resolveSchemaPath } from '../schema/schema-path';

/** Column types kubectl can print (`printerColumnDatatypes`). */
export const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
/** Column formats (`customResourceColumnDefinitionFormats`). */
export const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

/**
 * `additionalPrinterColumns` of one CRD version: name and type required, type and format from the
 * apiserver's enums, a simple JSON path, and two warnings of our own (the apiserver accepts both). A path kubectl's
 * JSONPath parser refuses: building the table of `kubectl get`, the apiserver silently drops that column and every
 * column after it. A path the version's schema lacks, so a typo does not silently print `<none>`.
 * `basePath` is the field path of the version.
 *
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#additional-printer-columns
 */
export function checkPrinterColumns(columns: unknown, schema: JSONSchemaProps | undefined, basePath: string): Issue[] {
  if (!Array.isArray(columns)) return [];
  const issues: Issue[] = [];
  columns.forEach((column, i) => {
    const path = index(child(basePath, 'additionalPrinterColumns'), i);
    if (!isObject(column)) {
      issues.push(invalid(path, column, 'must be an object'));
      return;
    }
    if (!column.name) issues.push(required(child(path, 'name')));
    if (!column.type) {
      issues.push(required(child(path, 'type'), `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`));
    } else if (!PRINTER_COLUMN_TYPES.includes(column.type)) {
      issues.push(invalid(child(path, 'type'), column.type, `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`));
    }
    if (column.format && !PRINTER_COLUMN_FORMATS.includes(column.format)) {
      issues.push(invalid(child(path, 'format'), column.format, `must be one of ${PRINTER_COLUMN_FORMATS.join(',')}`));
    }
    const jsonPathField = child(path, 'jsonPath');
    if (!column.jsonPath) {
      issues.push(required(jsonPathField));
      return;
    }
    const syntax = checkSimpleJsonPath(String(column.jsonPath), jsonPathField);
    if (syntax.length > 0) {
      issues.push(...syntax);
      return;
    }
    const parseError = printerColumnJsonPathError(String(column.jsonPath));
    if (parseError) {
      // a warning, as every finding the apiserver accepts (errors are exactly what it refuses), though always a mistake
      issues.push({
        path: jsonPathField,
        severity: 'warning',
        value: column.jsonPath,
        message: `kubectl's JSONPath parser refuses it (${parseError}): the apiserver accepts the CRD but drops this column and every later one from kubectl get`,
      });
      return;
    }
    if (!schema) return;
    const found = resolveSchemaPath(schema, String(column.jsonPath));
    if (found.kind === 'missing') {
      // the apiserver accepts it and kubectl prints an empty column
      issues.push({
        path: jsonPathField,
        severity: 'warning',
        value: column.jsonPath,
        message: `names no field declared in the schema (no ${found.missing}): the column is always empty`,
      });
    }
  });
  return issues;
}
