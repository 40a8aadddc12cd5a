#include "runner-fixture.h"

#include "ns3/nstime.h"

#include <gtest/gtest.h>

int
main(int argc, char** argv)
{
    // Frame times at 400G are fractions of a nanosecond: the fabric needs picoseconds.
    ns3::Time::SetResolution(ns3::Time::PS);
    testing::InitGoogleTest(&argc, argv);
    const int failed = RUN_ALL_TESTS();
    if (failed == 0)
    {
        aifabric_test::RemoveScratch(); // kept, for a look, when a test failed
    }
    return failed;
}
