# The guide's math_app in the same shape as ray-project/test_dag's conditional_dag.py: a router that
# sends ["ADD", n] to the Adder and ["MUL", n] to the Multiplier, each configured by user_config.
#   POST /calc/ ["MUL", 3]  ->  "15 pizzas please!"
from ray import serve
from ray.serve.handle import DeploymentHandle
from starlette.requests import Request


@serve.deployment
class Adder:
    def __init__(self, increment: int = 0):
        self.increment = increment

    def reconfigure(self, config: dict):
        self.increment = config.get("increment", self.increment)

    def add(self, n: int) -> int:
        return n + self.increment


@serve.deployment
class Multiplier:
    def __init__(self, factor: int = 1):
        self.factor = factor

    def reconfigure(self, config: dict):
        self.factor = config.get("factor", self.factor)

    def multiply(self, n: int) -> int:
        return n * self.factor


@serve.deployment
class Router:
    def __init__(self, multiplier: DeploymentHandle, adder: DeploymentHandle):
        self.multiplier = multiplier
        self.adder = adder

    async def __call__(self, request: Request):
        op, n = await request.json()
        if op == "ADD":
            result = await self.adder.add.remote(n)
        else:
            result = await self.multiplier.multiply.remote(n)
        return f"{result} pizzas please!"


serve_dag = Router.bind(Multiplier.bind(), Adder.bind())
