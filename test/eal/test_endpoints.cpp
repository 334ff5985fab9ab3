// Every declared endpoint has a handler once the modules serving them run:
// a started appliance binds its own and the log channel's, a router its
// own; and a router's go when it does.
#include <catch2/catch.hpp>

#include "endpoint_binding.hpp"
#include "protocol.hpp"
#include "ring_ports.hpp"
#include "router_endpoints.hpp"
#include "router_rig.hpp"

using namespace pmdfwd;
using namespace pmdfwd::test;

TEST_CASE("endpoints: every declared one is served by the running modules", "[endpoints]") {
    RingPort a = RingPort::create("ep_a");
    RingPort b = RingPort::create("ep_b");
    REQUIRE(a.port_id != 0xffff);
    REQUIRE(b.port_id != 0xffff);
    Config cfg = two_port_config(a, b, ForwardMode::patch);
    auto started = Appliance::start(cfg, plan_of(cfg), "ep");
    REQUIRE(started);
    auto app = std::move(started.value());
    for (const Endpoint* e : endpoints::kRouterEndpoints) CHECK_FALSE(endpoint_served(*e));
    {
        RouterRig rig;
        RouterEndpoints router_endpoints(*rig.router, {"a", "b", "c"});
        for (const Endpoint* e : kEndpoints) {
            INFO(e->path);
            CHECK(endpoint_served(*e));
        }
    }
    for (const Endpoint* e : endpoints::kRouterEndpoints) CHECK_FALSE(endpoint_served(*e));
    app->shutdown();
    for (const Endpoint* e : endpoints::kApplianceEndpoints) CHECK_FALSE(endpoint_served(*e));
}
