import { parseGet } from './rest-get';

describe('the kubectl arguments rest-get answers itself (the rest go to kubectl)', () => {
  test.each([
    [['get', 'pods'], { type: 'pods', allNamespaces: false }],
    [['get', 'pod', 'p-0', '-n', 'ns'], { type: 'pod', name: 'p-0', namespace: 'ns', allNamespaces: false }],
    [
      ['get', 'pods', '--namespace=ns', '-l', 'a=b,c'],
      { type: 'pods', namespace: 'ns', selector: 'a=b,c', allNamespaces: false },
    ],
    [
      ['get', 'sampledbs', '-A', '--selector=x in (y)'],
      { type: 'sampledbs', selector: 'x in (y)', allNamespaces: true },
    ],
    [
      ['get', 'events', '--all-namespaces', '--field-selector', 'type=Warning'],
      { type: 'events', fieldSelector: 'type=Warning', allNamespaces: true },
    ],
    [['get', 'pod/p-0', '-n', 'ns'], { type: 'pod', name: 'p-0', namespace: 'ns', allNamespaces: false }],
  ])('%j', (args, expected) => {
    const parsed = parseGet(args);
    expect(JSON.parse(JSON.stringify(parsed))).toStrictEqual(expected);
  });

  test.each([
    [['apply', '-f', '-']],
    [['get', '--raw', '/metrics']],
    [['get', 'pods,services']],
    [['get', 'pod/p-0', 'pod/p-1']],
    [['get', 'pod/p-0/x']],
    [['get', 'pods', 'a', 'b']],
    [['get', 'pods', '-o', 'wide']],
    [['get', 'pods', '--watch']],
    [['get']],
  ])('%j: kubectl', (...args) => {
    expect(parseGet(args[0])).toBeUndefined();
  });
});
