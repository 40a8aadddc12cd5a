#include "fabric-fixture.h"

using namespace ns3;

namespace aifabric_test
{

void
RunAndDestroy()
{
    Simulator::Run();
    Simulator::Destroy();
}

} // namespace aifabric_test
