# The guide's fruit_app in the same shape as ray-project/test_dag's fruit.py (which the guide downloads
# from GitHub): three stands priced by user_config and a market that asks one of them. Shipped in a
# ConfigMap when the cluster cannot reach GitHub (examples: serveApps 'configmap').
#   POST /fruit/ ["MANGO", 2]  ->  6
import asyncio

from ray import serve
from ray.serve.handle import DeploymentHandle
from starlette.requests import Request

# Each price check takes this long, so a bounded load keeps requests in flight and Serve's autoscaler
# (MangoStand's autoscaling_config) has something to react to.
WORK_SECONDS = 0.5


class _Stand:
    def __init__(self, price: float = 0):
        self.price = price

    def reconfigure(self, config: dict):
        self.price = config.get("price", self.price)

    async def check_price(self, amount: float) -> float:
        await asyncio.sleep(WORK_SECONDS)
        return self.price * amount


@serve.deployment
class MangoStand(_Stand):
    pass


@serve.deployment
class OrangeStand(_Stand):
    pass


@serve.deployment
class PearStand(_Stand):
    pass


@serve.deployment
class FruitMarket:
    def __init__(self, mango: DeploymentHandle, orange: DeploymentHandle, pear: DeploymentHandle):
        self.stands = {"MANGO": mango, "ORANGE": orange, "PEAR": pear}

    async def __call__(self, request: Request):
        fruit, amount = await request.json()
        stand = self.stands.get(str(fruit).upper())
        if stand is None:
            return -1
        return await stand.check_price.remote(amount)


deployment_graph = FruitMarket.bind(MangoStand.bind(), OrangeStand.bind(), PearStand.bind())
