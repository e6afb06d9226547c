// Policy warnings are asserted through the API in tests; keep stderr readable.
process.env.CDK8S_KUEUE_RAY_QUIET = '1';
